import type { ComposerState, ScheduleKind } from './form-state';

const kinds: { value: ScheduleKind; label: string }[] = [
  { value: 'now', label: 'As soon as I send it' },
  { value: 'at', label: 'At a set time' },
  { value: 'local', label: "At a time of day in each recipient's time zone" },
];

/** When: on send, at an instant, or at HH:MM in each contact's `timezone` (from an instant, or now). */
export function ScheduleEditor({ state, set }: { state: ComposerState; set(changes: Partial<ComposerState>): void }) {
  return (
    <section className="card stack" aria-labelledby="schedule-heading">
      <h2 id="schedule-heading">Schedule</h2>
      <fieldset className="condition">
        <legend>Send</legend>
        {kinds.map((kind) => (
          <label key={kind.value} className="switch">
            <input type="radio" name="schedule" value={kind.value} checked={state.schedule === kind.value} onChange={() => set({ schedule: kind.value })} />
            {kind.label}
          </label>
        ))}
      </fieldset>
      {state.schedule === 'local' ? (
        <label className="field">
          Local time
          <input type="time" value={state.localTime} onChange={(event) => set({ localTime: event.target.value })} style={{ maxWidth: 160 }} />
        </label>
      ) : null}
      {state.schedule === 'now' ? null : (
        <label className="field">
          {state.schedule === 'at' ? 'Send at (your time)' : 'Not before (your time, optional)'}
          <input type="datetime-local" value={state.at} onChange={(event) => set({ at: event.target.value })} style={{ maxWidth: 260 }} />
        </label>
      )}
      {state.schedule === 'local' ? (
        <p className="muted">
          Each contact gets it at {state.localTime || 'that time'} in their <code>timezone</code> property (the server's default zone when they have none), at
          the first such moment after {state.at === '' ? 'sending starts' : 'the time above'}.
        </p>
      ) : null}
    </section>
  );
}
