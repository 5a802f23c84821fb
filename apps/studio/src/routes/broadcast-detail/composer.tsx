import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import type { components } from '../../api/schema';
import { useSession } from '../../api/session';
import { ConfirmButton } from '../../components/confirm-button';
import { ErrorPanel } from '../../components/feedback';
import { formatDate, formatNumber } from '../../components/format';
import { Options } from '../../components/options';
import { PageHeader } from '../../components/page';
import {
  useBroadcastDeleteMutation,
  useBroadcastSaveMutation,
  useBroadcastTestMutation,
  useBroadcastTransitionMutation,
} from '../../data/broadcasts/broadcast-mutations';
import { useSegmentPreviewQuery } from '../../data/segments/segment-preview-query';
import { AudiencePicker } from './audience';
import { audienceOf, bodyOf, dataOf, stateOf, type ComposerState } from './form-state';
import { RecipientPreview } from './recipient-preview';
import { ScheduleEditor } from './schedule';
import { VariantsEditor } from './variants';

type Broadcast = components['schemas']['Broadcast'];
type Condition = components['schemas']['SegmentCondition'];

export interface ComposerChoices {
  templates: components['schemas']['EmailTemplate'][];
  categories: components['schemas']['PreferenceCategory'][];
  segments: components['schemas']['Segment'][];
  lists: components['schemas']['MailingList'][];
}

/** The audience as a condition tree, so the segment preview counts it and samples its contacts. */
function audienceConditions(state: ComposerState, segments: ComposerChoices['segments']): Condition | undefined {
  const audience = audienceOf(state);
  if (audience === undefined) return undefined;
  if ('all' in audience) return { all: [] };
  if ('listKey' in audience) return { type: 'list', list: audience.listKey };
  return segments.find((segment) => segment.id === audience.segmentId)?.conditions;
}

/** When it goes, in the words of the confirmation. */
function whenText(state: ComposerState): string {
  const at = state.at === '' ? undefined : formatDate(new Date(state.at).toISOString());
  if (state.schedule === 'at') return `at ${at ?? '—'}`;
  if (state.schedule === 'local') return `at ${state.localTime} in each recipient's time zone${at === undefined ? '' : `, from ${at}`}`;
  return 'now';
}

function TestSend({ busy, onSend }: { busy: boolean; onSend(emails: string[]): void }) {
  const [text, setText] = useState('');
  const emails = text
    .split(/[\s,;]+/)
    .map((email) => email.trim())
    .filter((email) => email !== '');
  return (
    <div className="row condition-fields">
      <label className="field" style={{ flex: 1 }}>
        Send a test to (up to 5, comma-separated)
        <input type="text" inputMode="email" value={text} placeholder="you@example.com" onChange={(event) => setText(event.target.value)} />
      </label>
      <button type="button" disabled={busy || emails.length === 0 || emails.length > 5} onClick={() => onSend(emails)}>
        Send test
      </button>
    </div>
  );
}

/**
 * /studio/broadcasts/new and a draft's page: the message, the audience with its live count, the
 * variants and A/B test, the schedule, a preview as a real recipient gets it, a test send, and the
 * send behind a confirmation naming how many contacts it goes to. Every action saves the draft first.
 */
export function Composer({ broadcast, choices }: { broadcast: Broadcast | undefined; choices: ComposerChoices }) {
  const { can } = useSession();
  const navigate = useNavigate();
  const [state, setState] = useState(() => stateOf(broadcast));
  const set = (changes: Partial<ComposerState>) => setState((current) => ({ ...current, ...changes }));
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const save = useBroadcastSaveMutation();
  const test = useBroadcastTestMutation();
  const send = useBroadcastTransitionMutation();
  const remove = useBroadcastDeleteMutation({ onSuccess: () => navigate('/studio/broadcasts') });
  const audience = useSegmentPreviewQuery(audienceConditions(state, choices.segments));
  const parsed = dataOf(state.dataText);
  const id = broadcast?.id;

  /** Saves the fields (creating the draft the first time, which moves the page to its own URL) and gives its id. */
  const saveDraft = async (): Promise<string> => {
    const body = bodyOf(state);
    if ('problem' in body) {
      setProblem(body.problem);
      throw new Error(body.problem);
    }
    setProblem(undefined);
    const saved = await save.mutateAsync({ id, ...body });
    if (id === undefined) await navigate(`/studio/broadcasts/${saved.broadcast.id}`, { replace: true });
    return saved.broadcast.id;
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setNotice(undefined);
    saveDraft().then(
      () => setNotice('Draft saved.'),
      () => undefined,
    );
  };
  const sendTest = (emails: string[]) => {
    setNotice(undefined);
    saveDraft()
      .then((savedId) => test.mutateAsync({ id: savedId, emails }))
      .then(
        ({ results }) =>
          setNotice(results.map((result) => `${result.email}: ${result.status}${result.reason === null ? '' : ` (${result.reason})`}`).join('; ')),
        () => undefined,
      );
  };
  const count = audience.data?.count;
  // a required category is for emails a person asked for: the api refuses it for a broadcast
  const broadcastCategories = choices.categories.filter((category) => !category.required);
  const categoryLabel = choices.categories.find((category) => category.key === state.category)?.label ?? state.category;

  return (
    <div className="stack">
      <PageHeader
        title={broadcast?.name ?? 'New broadcast'}
        description={
          <>
            <Link to="/studio/broadcasts">All broadcasts</Link> ·{' '}
            {broadcast === undefined ? 'nothing is sent until you confirm.' : `draft, changed ${formatDate(broadcast.updatedAt)}`}
          </>
        }
        actions={
          broadcast !== undefined && can.manageJourneys ? (
            <ConfirmButton
              label="Delete draft"
              title={`Delete the draft “${broadcast.name}”?`}
              confirmLabel="Delete draft"
              danger
              onConfirm={() => remove.mutateAsync(broadcast.id)}
            >
              Nothing was sent from it; its settings are lost.
            </ConfirmButton>
          ) : undefined
        }
      />
      {can.manageJourneys ? null : <p className="notice">Composing and sending broadcasts needs the editor role; you can look around.</p>}
      <form className="stack" onSubmit={submit} noValidate aria-label="Broadcast">
        <div className="grid" style={{ gridTemplateColumns: 'repeat(auto-fit, minmax(min(100%, 420px), 1fr))', alignItems: 'start' }}>
          <div className="stack">
            <section className="card stack" aria-labelledby="message-heading">
              <h2 id="message-heading">Message</h2>
              <label className="field">
                Name
                <input value={state.name} onChange={(event) => set({ name: event.target.value })} maxLength={200} placeholder="March product update" />
              </label>
              <label className="field">
                Template
                <select
                  value={state.templateKey}
                  onChange={(event) => {
                    const template = choices.templates.find((candidate) => candidate.key === event.target.value);
                    const category = broadcastCategories.some((candidate) => candidate.key === template?.category) ? template?.category : undefined;
                    set({ templateKey: event.target.value, ...(category === undefined ? {} : { category }) });
                  }}
                >
                  <option value="">Choose a template…</option>
                  <Options
                    items={choices.templates.map(
                      (template) => [template.key, template.description === null ? template.key : `${template.key} — ${template.description}`] as const,
                    )}
                  />
                </select>
              </label>
              <label className="field">
                Subject (optional: the template's otherwise)
                <input value={state.subject} onChange={(event) => set({ subject: event.target.value })} maxLength={998} />
              </label>
              <label className="field">
                Category
                <select value={state.category} onChange={(event) => set({ category: event.target.value })}>
                  <option value="">Choose a category…</option>
                  <Options items={broadcastCategories.map((category) => [category.key, `${category.label} (${category.key})`] as const)} />
                </select>
              </label>
              <label className="field">
                Template data (JSON; props left out come from each contact's properties)
                <textarea value={state.dataText} spellCheck={false} onChange={(event) => set({ dataText: event.target.value })} style={{ minHeight: 100 }} />
              </label>
              {'problem' in parsed ? <p className="muted">{parsed.problem}</p> : null}
            </section>
            <AudiencePicker state={state} set={set} segments={choices.segments} lists={choices.lists} count={count} countError={audience.error} />
            <VariantsEditor state={state} set={set} templates={choices.templates.map((template) => template.key)} />
            <ScheduleEditor state={state} set={set} />
          </div>
          <RecipientPreview
            state={state}
            data={'data' in parsed ? parsed.data : undefined}
            templates={choices.templates}
            sample={audience.data?.sample ?? []}
          />
        </div>
        {can.manageJourneys ? (
          <section className="card stack" aria-labelledby="send-heading">
            <h2 id="send-heading">Test and send</h2>
            <TestSend busy={save.isPending || test.isPending} onSend={sendTest} />
            {problem === undefined ? null : (
              <div className="error-panel" role="alert">
                {problem}
              </div>
            )}
            {save.isError ? <ErrorPanel error={save.error} /> : null}
            {test.isError ? <ErrorPanel error={test.error} /> : null}
            <p role="status">{notice}</p>
            <div className="row">
              <button type="submit" disabled={save.isPending}>
                Save draft
              </button>
              <ConfirmButton
                label="Review and send…"
                title={`Send “${state.name.trim() || 'this broadcast'}”?`}
                confirmLabel={count === undefined ? 'Send' : `Send to ${formatNumber(count)} ${count === 1 ? 'contact' : 'contacts'}`}
                onConfirm={async () => {
                  const savedId = await saveDraft();
                  await send.mutateAsync({ id: savedId, action: 'send' });
                }}
              >
                <p>
                  <strong data-testid="confirm-count">
                    {count === undefined ? 'The audience' : `${formatNumber(count)} ${count === 1 ? 'contact' : 'contacts'}`}
                  </strong>{' '}
                  {state.variants.length === 0 ? '' : `(${state.variants.length} variants${state.abTest ? ', A/B tested first' : ''}) `}
                  will get it, {whenText(state)}, in the category “{categoryLabel}”. Those unsubscribed, suppressed or without an email address are skipped, and
                  nobody gets it twice. You can pause or cancel it while it sends.
                </p>
              </ConfirmButton>
            </div>
          </section>
        ) : null}
      </form>
    </div>
  );
}
