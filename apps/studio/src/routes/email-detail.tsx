import { Link, useParams } from 'react-router';
import { Badge, ErrorPanel, Skeleton } from '../components/feedback';
import { formatDate } from '../components/format';
import { PageHeader } from '../components/page';
import { useEmailQuery } from '../data/emails/email-query';
import { useEmailRenderedQuery } from '../data/emails/email-rendered-query';

/** /studio/emails/:id: the message as sent (HTML in a script-less sandbox), its links and delivery events. */
export default function EmailDetail() {
  const { id = '' } = useParams();
  const detail = useEmailQuery(id);
  const rendered = useEmailRenderedQuery(id);
  if (detail.isPending)
    return (
      <>
        <PageHeader title="Email" />
        <Skeleton />
      </>
    );
  if (detail.isError)
    return (
      <>
        <PageHeader title="Email" />
        <ErrorPanel error={detail.error} />
      </>
    );
  const { email, trackedLinks, journeyContext } = detail.data;
  const events: [string, string | null][] = [
    ['Created', email.createdAt],
    ['Sent', email.sentAt],
    ['Delivered', email.deliveredAt],
    ['Opened', email.openedAt],
    ['Clicked', email.clickedAt],
    ['Bounced', email.bouncedAt],
    ['Complained', email.complainedAt],
  ];
  return (
    <div className="stack">
      <PageHeader
        title={email.subject || email.templateKey}
        description={
          <>
            To {email.toEmail} · <Badge value={email.status} />
          </>
        }
      />
      <div className="grid">
        <section className="card" aria-labelledby="delivery">
          <h2 id="delivery">Delivery</h2>
          <dl className="fields">
            {events.map(([label, at]) => (
              <div key={label} style={{ display: 'contents' }}>
                <dt>{label}</dt>
                <dd>{formatDate(at)}</dd>
              </div>
            ))}
            <dt>Template</dt>
            <dd>
              <Link to={`/studio/templates?key=${encodeURIComponent(email.templateKey)}`}>{email.templateKey}</Link>
            </dd>
            <dt>Journey</dt>
            <dd>
              {journeyContext === null ? (
                '—'
              ) : (
                <Link to={`/studio/journeys/${encodeURIComponent(journeyContext.journeyId)}`}>
                  {journeyContext.journeyId} ({journeyContext.status})
                </Link>
              )}
            </dd>
          </dl>
        </section>
        <section className="card" aria-labelledby="headers">
          <h2 id="headers">Headers</h2>
          {rendered.isSuccess ? (
            <dl className="fields">
              {Object.entries(rendered.data.headers).map(([name, value]) => (
                <div key={name} style={{ display: 'contents' }}>
                  <dt>{name}</dt>
                  <dd>{value}</dd>
                </div>
              ))}
            </dl>
          ) : rendered.isError ? (
            <ErrorPanel error={rendered.error} />
          ) : (
            <Skeleton rows={3} />
          )}
        </section>
      </div>
      <section className="card" aria-labelledby="links">
        <h2 id="links">Tracked links</h2>
        {trackedLinks.length === 0 ? (
          <p className="muted">This email has no tracked links.</p>
        ) : (
          <table aria-label="Tracked links">
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Clicks</th>
                <th scope="col">Last click</th>
              </tr>
            </thead>
            <tbody>
              {trackedLinks.map((link) => (
                <tr key={link.id}>
                  <td style={{ wordBreak: 'break-all' }}>{link.originalUrl}</td>
                  <td>{link.clickCount}</td>
                  <td>{formatDate(link.clicks.at(-1)?.clickedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="card stack" aria-labelledby="content">
        <h2 id="content">Content</h2>
        <p className="muted">Rebuilt from the template and the data of this send, without tracking, so viewing it records nothing.</p>
        {rendered.isPending ? (
          <Skeleton />
        ) : rendered.isError ? (
          <ErrorPanel error={rendered.error} />
        ) : (
          <>
            {/* an empty sandbox: no scripts, no forms, no navigation of the studio */}
            <iframe title="Email HTML" className="email-frame" sandbox="" srcDoc={rendered.data.html} />
            <h3>Text part</h3>
            <pre>{rendered.data.text}</pre>
          </>
        )}
      </section>
    </div>
  );
}
