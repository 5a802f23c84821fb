import { Link } from 'react-router';
import type { components } from '../../api/schema';
import { ErrorPanel } from '../../components/feedback';
import { formatNumber } from '../../components/format';
import { Options } from '../../components/options';
import type { AudienceKind, ComposerState } from './form-state';

type Segment = components['schemas']['Segment'];
type MailingList = components['schemas']['MailingList'];

interface AudienceProps {
  state: ComposerState;
  set(changes: Partial<ComposerState>): void;
  segments: Segment[];
  lists: MailingList[];
  /** contacts the audience holds now (the segment preview), undefined while counting */
  count: number | undefined;
  countError: unknown;
}

const kinds: { value: AudienceKind; label: string }[] = [
  { value: 'segment', label: 'A segment' },
  { value: 'list', label: 'A list' },
  { value: 'all', label: 'Every contact' },
];

/** Who gets it: a saved segment, a list's subscribers or everyone, with how many that is now. */
export function AudiencePicker({ state, set, segments, lists, count, countError }: AudienceProps) {
  return (
    <section className="card stack" aria-labelledby="audience-heading">
      <h2 id="audience-heading">Audience</h2>
      <fieldset className="condition">
        <legend>Send to</legend>
        <div className="row">
          {kinds.map((kind) => (
            <label key={kind.value} className="switch">
              <input
                type="radio"
                name="audience"
                value={kind.value}
                checked={state.audienceKind === kind.value}
                onChange={() => set({ audienceKind: kind.value })}
              />
              {kind.label}
            </label>
          ))}
        </div>
        {state.audienceKind === 'segment' ? (
          <label className="field">
            Segment
            <select value={state.segmentId} onChange={(event) => set({ segmentId: event.target.value })}>
              <option value="">Choose a segment…</option>
              <Options items={segments.map((segment) => [segment.id, segment.name] as const)} />
            </select>
          </label>
        ) : null}
        {state.audienceKind === 'list' ? (
          <label className="field">
            List
            <select value={state.listKey} onChange={(event) => set({ listKey: event.target.value })}>
              <option value="">Choose a list…</option>
              <Options items={lists.map((list) => [list.key, list.name === list.key ? list.key : `${list.name} (${list.key})`] as const)} />
            </select>
          </label>
        ) : null}
      </fieldset>
      {countError === null || countError === undefined ? (
        <p role="status" data-testid="audience-count">
          {count === undefined ? (
            'Choose who gets it to see how many that is.'
          ) : (
            <>
              <strong>{formatNumber(count)}</strong> {count === 1 ? 'contact' : 'contacts'} in the audience now. Whoever is unsubscribed from the category,
              suppressed or without an email address is skipped; the audience is fixed when sending starts.
            </>
          )}
        </p>
      ) : (
        <ErrorPanel error={countError} />
      )}
      {state.audienceKind === 'segment' && segments.length === 0 ? (
        <p className="muted">
          No segments yet: <Link to="/studio/segments/new">build one</Link>.
        </p>
      ) : null}
    </section>
  );
}
