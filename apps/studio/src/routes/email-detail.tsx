import { Link, useParams } from 'react-router';
import { Badge, ErrorPanel, Skeleton } from '../components/feedback';
import { formatDate } from '../components/format';
import { HitBy } from '../components/machine-hit';
import { Cell, ColumnHeaders, TableRegion } from '../components/table-region';
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
  const { email, trackedLinks, recentOpens, journeyContext } = detail.data;
  // opens and clicks are a person's; a machine's first hit shows apart, greyed
  const events: [string, string | null][] = [
    ['Created', email.createdAt],
    ['Sent', email.sentAt],
    ['Delivered', email.deliveredAt],
    ['Opened', email.humanOpenedAt],
    ['Clicked', email.humanClickedAt],
    ['Bounced', email.bouncedAt],
    ['Complained', email.complainedAt],
  ];
  const machineFirst: [string, string | null][] = [
    ['First open, machines included', email.humanOpenedAt === email.openedAt ? null : email.openedAt],
    ['First click, machines included', email.humanClickedAt === email.clickedAt ? null : email.clickedAt],
  ];
  const hits = [
    ...recentOpens.map((open) => ({ ...open, at: open.openedAt, what: 'Open' })),
    ...trackedLinks.flatMap((link) =>
      link.clicks.map((click) => ({ ...click, at: click.clickedAt, what: link.honeypot ? 'Click on the invisible link' : `Click: ${link.originalUrl}` })),
    ),
  ].sort((a, b) => b.at.localeCompare(a.at));
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
            {machineFirst
              .filter(([, at]) => at !== null)
              .map(([label, at]) => (
                <div key={label} style={{ display: 'contents' }} className="muted">
                  <dt>{label}</dt>
                  <dd>{formatDate(at)}</dd>
                </div>
              ))}
            <dt>Opens</dt>
            <dd>
              {email.opens.human} by people <span className="muted">· {email.opens.machine} by machines</span>
            </dd>
            <dt>Clicks</dt>
            <dd>
              {email.clicks.human} by people <span className="muted">· {email.clicks.machine} by machines</span>
            </dd>
            <dt>Template</dt>
            <dd>
              <Link to={`/studio/templates?key=${encodeURIComponent(email.templateKey)}`}>{email.templateKey}</Link>
            </dd>
            <dt>Language</dt>
            <dd>{email.locale ?? '—'}</dd>
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
          <TableRegion label="Tracked links">
            <ColumnHeaders names={['URL', 'Clicks', 'Last click']} />
            <tbody>
              {trackedLinks.map((link) => {
                const people = link.clicks.filter((click) => !click.machine).length;
                return (
                  <tr key={link.id} className={link.honeypot ? 'muted' : undefined}>
                    <Cell label="URL">
                      <span style={{ wordBreak: 'break-all' }}>{link.honeypot ? 'Invisible link (only machines follow it)' : link.originalUrl}</span>
                    </Cell>
                    <Cell label="Clicks">
                      {people} by people <span className="muted">· {link.clickCount - people} by machines</span>
                    </Cell>
                    <Cell label="Last click">{formatDate(link.clicks[0]?.clickedAt)}</Cell>
                  </tr>
                );
              })}
            </tbody>
          </TableRegion>
        )}
      </section>
      <section className="card" aria-labelledby="hits">
        <h2 id="hits">Opens and clicks</h2>
        {hits.length === 0 ? (
          <p className="muted">Nobody has opened this email or clicked its links yet.</p>
        ) : (
          <TableRegion label="Opens and clicks">
            <ColumnHeaders names={['When', 'What', 'By', 'Address', 'User agent']} />
            <tbody>
              {hits.map((hit) => (
                <tr key={hit.id} className={hit.machine ? 'muted' : undefined}>
                  <Cell label="When">{formatDate(hit.at)}</Cell>
                  <Cell label="What">
                    <span style={{ wordBreak: 'break-all' }}>{hit.what}</span>
                  </Cell>
                  <Cell label="By">
                    <HitBy machine={hit.machine} machineReason={hit.machineReason} />
                  </Cell>
                  <Cell label="Address">{hit.ipAddress ?? '—'}</Cell>
                  <Cell label="User agent">
                    <span style={{ wordBreak: 'break-all' }}>{hit.userAgent ?? '—'}</span>
                  </Cell>
                </tr>
              ))}
            </tbody>
          </TableRegion>
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
