import { Link } from 'react-router';
import type { components } from '../api/schema';
import { Badge, Empty, ErrorPanel, Skeleton } from '../components/feedback';
import { formatDate } from '../components/format';
import { optional, useUrlState } from '../components/url-state';
import { useContactExplainQuery } from '../data/contacts/contact-explain-query';
import { useJourneysQuery } from '../data/journeys/journeys-query';
import { useTemplatesQuery } from '../data/templates/templates-query';

type Explanation = components['schemas']['JourneyExplanation'];

// the API tells instants inside an outcome ("waiting until 2026-…Z") as ISO; the reader wants their own zone
const ISO_INSTANT = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;
const DLQ_ENTRY = /^failed → DLQ (\S+)$/;
// the first word of an outcome names its kind; the badge colors it like the rest of the studio
const KINDS = ['sent', 'skipped', 'exited', 'waiting', 'failed', 'entered'] as const;

function localized(text: string): string {
  return text.replace(ISO_INSTANT, (iso) => formatDate(iso));
}

/** An outcome phrase with its kind as a badge; a dead letter links to the DLQ page. */
function Outcome({ text }: { text: string }) {
  const kind = KINDS.find((word) => text.startsWith(word));
  const badge = kind === undefined ? null : <Badge value={kind} />;
  const letter = DLQ_ENTRY.exec(text)?.[1];
  if (letter !== undefined)
    return (
      <>
        {badge} → <Link to="/studio/dlq">dead letter</Link> <code>{letter}</code>
      </>
    );
  const rest = kind === undefined ? text : text.slice(kind.length).replace(/^:\s*/, '');
  return (
    <>
      {badge} {localized(rest)}
    </>
  );
}

/** The journey page filtered to this person with the enrollment's log open. */
function enrollmentLink(explanation: Explanation, stateId: string): string {
  const query = new URLSearchParams({ ...(explanation.contact.externalId === null ? {} : { userId: explanation.contact.externalId }), state: stateId });
  return `/studio/journeys/${encodeURIComponent(explanation.journey.id)}?${query.toString()}`;
}

function Story({ explanation }: { explanation: Explanation }) {
  const { journey } = explanation;
  return (
    <div className="stack" aria-label={`How ${journey.name} went for this contact`} role="group">
      {explanation.unavailable === undefined ? null : (
        <p role="status">
          <Badge value="disabled" /> {explanation.unavailable}: the journey starts nothing right now.
        </p>
      )}
      {explanation.triggers.length === 0 ? null : (
        <ol className="timeline" aria-label={`Trigger events (${journey.triggerEvent})`}>
          {explanation.triggers.map((trigger) => (
            <li key={trigger.eventId}>
              <span className="muted" style={{ minWidth: 160 }}>
                {formatDate(trigger.at)}
              </span>
              <span>
                <code>{journey.triggerEvent}</code> <Outcome text={trigger.outcome} />
              </span>
            </li>
          ))}
        </ol>
      )}
      {explanation.enrollments.map((enrollment, index) => (
        <div key={enrollment.stateId} className="stack" style={{ gap: 4 }}>
          <h3 style={{ margin: 0, fontSize: 15 }}>
            Enrollment {index + 1} <Badge value={enrollment.status} /> <span className="muted">entered {formatDate(enrollment.enteredAt)}</span>
          </h3>
          <ol className="timeline" aria-label={`Steps of enrollment ${index + 1}`}>
            {enrollment.steps.map((step, stepIndex) => (
              <li key={stepIndex}>
                <span className="muted" style={{ minWidth: 160 }}>
                  {formatDate(step.at)}
                </span>
                <span>
                  {step.templateKey === undefined ? null : <strong>{step.templateKey} </strong>}
                  <code>{step.node}</code> <Outcome text={step.outcome} />
                  {step.locale === undefined ? null : <span className="muted"> in {step.locale}</span>}
                </span>
              </li>
            ))}
          </ol>
          {enrollment.now === undefined ? null : (
            <p className="muted" style={{ margin: 0 }}>
              Now: {localized(enrollment.now)}
            </p>
          )}
          <p style={{ margin: 0 }}>
            <Link to={enrollmentLink(explanation, enrollment.stateId)}>This enrollment in {journey.name}</Link>
          </p>
        </div>
      ))}
      {explanation.notEnrolled === undefined ? null : (
        <p>
          <strong>Not enrolled:</strong> {localized(explanation.notEnrolled)}
        </p>
      )}
      {explanation.template === undefined ? null : (
        <p>
          <strong>Template {explanation.template.key}:</strong> {localized(explanation.template.outcome)}
        </p>
      )}
    </div>
  );
}

/**
 * "Why did they (not) get an email?": the explain story of one journey (and optionally one of its
 * templates) for this contact, chosen in the query string (`?explain=<journeyId>&template=<key>`)
 * so the answer is a link to share. The API builds it (docs/journeys.md, "Explain").
 */
export function ContactExplain({ contactId }: { contactId: string }) {
  const url = useUrlState();
  const journeyId = url.get('explain');
  const templateKey = url.get('template');
  const journeys = useJourneysQuery({ limit: 100 });
  const templates = useTemplatesQuery();
  const explanation = useContactExplainQuery(contactId, { journeyId, templateKey: optional(templateKey) });
  return (
    <div className="stack">
      <div className="row">
        <label className="field">
          Journey
          <select value={journeyId} onChange={(event) => url.set({ explain: event.target.value })} disabled={!journeys.isSuccess}>
            <option value="">Choose a journey…</option>
            {journeys.data?.journeys.map((journey) => (
              <option key={journey.id} value={journey.id}>
                {journey.name} ({journey.id})
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          Template (optional)
          <select value={templateKey} onChange={(event) => url.set({ template: event.target.value })} disabled={!templates.isSuccess}>
            <option value="">Any</option>
            {templates.data?.templates.map((template) => (
              <option key={template.key} value={template.key}>
                {template.key}
              </option>
            ))}
          </select>
        </label>
      </div>
      {journeys.isError ? <ErrorPanel error={journeys.error} /> : null}
      {templates.isError ? <ErrorPanel error={templates.error} /> : null}
      {journeyId === '' ? (
        <Empty>Pick a journey to see whether this contact entered it and what each step did: sent, skipped and why, exited, waiting or failed.</Empty>
      ) : explanation.isPending ? (
        <Skeleton rows={3} />
      ) : explanation.isError ? (
        <ErrorPanel error={explanation.error} />
      ) : (
        <Story explanation={explanation.data.explanation} />
      )}
    </div>
  );
}
