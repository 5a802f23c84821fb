import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { components } from '../api/schema';
import { useSession } from '../api/session';
import { ConfirmButton } from '../components/confirm-button';
import { Badge, Empty, ErrorPanel, Skeleton } from '../components/feedback';
import { formatDate } from '../components/format';
import { machineReasonLabel } from '../components/machine-hit';
import { PageHeader } from '../components/page';
import { useUrlState } from '../components/url-state';
import { useCategoriesQuery } from '../data/categories/categories-query';
import { useContactDeleteMutation } from '../data/contacts/contact-delete-mutation';
import { useContactPreferencesUpdateMutation } from '../data/contacts/contact-preferences-update-mutation';
import { useContactQuery } from '../data/contacts/contact-query';
import { useContactTimelineQuery } from '../data/contacts/contact-timeline-query';
import { useContactUpdateMutation } from '../data/contacts/contact-update-mutation';
import { ContactExplain } from './contact-detail-explain';
import { ContactLists } from './contact-detail-lists';

type Contact = components['schemas']['Contact'];
type Preferences = components['schemas']['EmailPreferences'];
type TimelineEntry = components['schemas']['TimelineEntry'];

/** Properties as editable JSON; the API merges what is sent (keys are added or changed, never removed). */
function PropertiesEditor({ contact, editable }: { contact: Contact; editable: boolean }) {
  const [text, setText] = useState(() => JSON.stringify(contact.properties, null, 2));
  let parsed: Record<string, unknown> | undefined;
  let problem: string | undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) parsed = value as Record<string, unknown>;
    else problem = 'Properties must be a JSON object, like {"plan": "pro"}.';
  } catch (error) {
    problem = `Not valid JSON: ${(error as Error).message}`;
  }
  const save = useContactUpdateMutation(contact.id);
  if (!editable) return <pre>{JSON.stringify(contact.properties, null, 2)}</pre>;
  return (
    <div className="stack">
      <label className="field">
        Properties (JSON; saved keys are merged into the contact)
        <textarea value={text} onChange={(event) => setText(event.target.value)} aria-invalid={problem !== undefined} spellCheck={false} />
      </label>
      {problem === undefined ? null : (
        <p className="muted" role="status">
          {problem}
        </p>
      )}
      {save.isError ? <ErrorPanel error={save.error} /> : null}
      {save.isSuccess ? <p role="status">Saved.</p> : null}
      <div>
        <button
          type="button"
          className="primary"
          disabled={problem !== undefined || save.isPending}
          onClick={() => save.mutate({ properties: parsed as Record<string, never> })}
        >
          Save properties
        </button>
      </div>
    </div>
  );
}

/**
 * `preferences` is null before anything was stored for the contact (its preferences endpoint answers
 * 404 then): every send applies the defaults, so the switches show subscribed and not suppressed.
 */
function PreferencesPanel({ contact, preferences, editable }: { contact: Contact; preferences: Preferences | null; editable: boolean }) {
  const update = useContactPreferencesUpdateMutation(contact.id);
  // every category the deployment declares (journeys/categories.ts); one never stored is subscribed
  const categories = useCategoriesQuery();
  const all = preferences?.unsubscribedAll === true;
  if (contact.email === null) return <p className="muted">This contact has no email address, so it has no email preferences.</p>;
  if (categories.isError) return <ErrorPanel error={categories.error} />;
  return (
    <div className="stack">
      {categories.isPending ? <Skeleton rows={3} /> : null}
      {(categories.data?.categories ?? []).map((category) =>
        // emails the person asked for: no opt-out stops them, so there is nothing to switch
        category.required ? (
          <p className="muted" key={category.key}>
            {category.label}: always sent (the person asked for these emails)
          </p>
        ) : (
          <label className="switch" key={category.key}>
            <input
              type="checkbox"
              checked={preferences?.categories[category.key] !== false}
              disabled={!editable || update.isPending}
              onChange={(e) => update.mutate({ categories: { [category.key]: e.target.checked } })}
            />
            {category.label}
          </label>
        ),
      )}
      <label className="switch">
        <input
          type="checkbox"
          checked={!all}
          disabled={!editable || update.isPending}
          onChange={(e) => update.mutate({ unsubscribedAll: !e.target.checked })}
        />
        Subscribed to email at all
      </label>
      {preferences?.suppressed === true ? (
        <p>
          <Badge value="bounced" /> Suppressed since {formatDate(preferences.suppressedAt)} after {preferences.bounceCount} bounce(s).
        </p>
      ) : null}
      {update.isError ? <ErrorPanel error={update.error} /> : null}
    </div>
  );
}

function describe(entry: TimelineEntry) {
  const data = entry.data as Record<string, unknown>;
  switch (entry.type) {
    case 'event': {
      const properties = (data.properties ?? {}) as Record<string, unknown>;
      // a machine's open or click (docs/email.md, "Machine opens and clicks"): greyed, with its reason
      if (properties.machine === true)
        return (
          <span className="muted">
            Event <code>{String(data.event)}</code> by a machine: {machineReasonLabel(properties.machineReason)}
          </span>
        );
      return (
        <>
          Event <code>{String(data.event)}</code>
        </>
      );
    }
    case 'email':
      return (
        <>
          Email <Link to={`/studio/emails/${String(data.id)}`}>{String(data.subject ?? data.templateKey)}</Link> <Badge value={String(data.status)} />
          {typeof data.locale === 'string' ? <span className="muted"> in {data.locale}</span> : null}
          {/* opened or clicked by machines only: the status says so, no person did */}
          {(data.openedAt ?? null) !== null && (data.humanOpenedAt ?? null) === null ? <span className="muted"> opened by machines only</span> : null}
          {(data.clickedAt ?? null) !== null && (data.humanClickedAt ?? null) === null ? <span className="muted"> clicked by machines only</span> : null}
        </>
      );
    case 'journey':
      return (
        <>
          Journey <Link to={`/studio/journeys/${encodeURIComponent(String(data.journeyId))}`}>{String(data.journeyId)}</Link>{' '}
          <Badge value={String(data.status)} /> at <code>{String(data.currentNodeId)}</code>
        </>
      );
  }
}

function Timeline({ contactId }: { contactId: string }) {
  const url = useUrlState();
  const type = url.get('type');
  const timeline = useContactTimelineQuery(contactId, { limit: 50, ...(type === '' ? {} : { type: type as 'event' | 'journey' | 'email' }) });
  return (
    <div className="stack">
      <label className="field" style={{ maxWidth: 220 }}>
        Show
        <select value={type} onChange={(e) => url.set({ type: e.target.value })}>
          <option value="">Everything</option>
          <option value="event">Events</option>
          <option value="email">Emails</option>
          <option value="journey">Journeys</option>
        </select>
      </label>
      {timeline.isPending ? (
        <Skeleton />
      ) : timeline.isError ? (
        <ErrorPanel error={timeline.error} />
      ) : timeline.data.timeline.length === 0 ? (
        <Empty>Nothing has happened to this contact yet.</Empty>
      ) : (
        <ol className="timeline" aria-label="Timeline">
          {timeline.data.timeline.map((entry, index) => (
            <li key={index}>
              <span className="muted" style={{ minWidth: 160 }}>
                {formatDate(entry.timestamp)}
              </span>
              <span>{describe(entry)}</span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

/** /studio/contacts/:id?type=&explain=&template=: properties, preferences, lists, why an email was (not) sent, the timeline, and GDPR delete. */
export default function ContactDetail() {
  const { id = '' } = useParams();
  const { can } = useSession();
  const navigate = useNavigate();
  const detail = useContactQuery(id);
  const remove = useContactDeleteMutation({ onSuccess: () => navigate('/studio/contacts') });
  if (detail.isPending)
    return (
      <>
        <PageHeader title="Contact" />
        <Skeleton />
      </>
    );
  if (detail.isError)
    return (
      <>
        <PageHeader title="Contact" />
        <ErrorPanel error={detail.error} />
      </>
    );
  const { contact, preferences } = detail.data;
  return (
    <div className="stack">
      <PageHeader
        title={contact.email ?? contact.externalId ?? 'Contact'}
        description={`User id ${contact.externalId} · first seen ${formatDate(contact.firstSeenAt)} · last seen ${formatDate(contact.lastSeenAt)}`}
        actions={
          can.manageJourneys ? (
            <ConfirmButton
              label="Delete contact"
              title="Delete this contact (GDPR)?"
              confirmLabel="Delete permanently"
              typedConfirmation={contact.externalId ?? contact.id}
              danger
              onConfirm={() => remove.mutateAsync(contact.id)}
            >
              The contact and its email preferences are removed for good, and its journey runs end. A bounce, complaint or unsubscribe of its address is kept.
              This cannot be undone.
            </ConfirmButton>
          ) : undefined
        }
      />
      <div className="grid">
        <section className="card" aria-labelledby="properties">
          <h2 id="properties">Properties</h2>
          <PropertiesEditor key={contact.updatedAt} contact={contact} editable={can.manageJourneys} />
        </section>
        <section className="card" aria-labelledby="preferences">
          <h2 id="preferences">Email preferences</h2>
          <PreferencesPanel contact={contact} preferences={preferences} editable={can.manageJourneys} />
        </section>
        <section className="card" aria-labelledby="lists">
          <h2 id="lists">Lists</h2>
          <ContactLists contactId={contact.id} editable={can.manageJourneys} />
        </section>
      </div>
      <section className="card" aria-labelledby="explain">
        <h2 id="explain">Why did they (not) get an email?</h2>
        <ContactExplain contactId={contact.id} />
      </section>
      <section className="card" aria-labelledby="timeline">
        <h2 id="timeline">Timeline</h2>
        <Timeline contactId={contact.id} />
      </section>
    </div>
  );
}
