import { useState, type FormEvent } from 'react';
import { FormFooter } from '../../../components/form-footer';
import { alertTypes, channels, ruleBodyOf, type AlertType, type Channel, type RuleBody, type RuleDraft } from './rule-input';

interface RuleFormProps {
  id: string;
  initial: RuleDraft;
  submitLabel: string;
  busy: boolean;
  error: unknown;
  onSubmit(body: RuleBody): void;
  onCancel?: () => void;
}

/** Name, what to watch, where to tell: creating a rule and editing one. */
export function RuleForm({ id, initial, submitLabel, busy, error, onSubmit, onCancel }: RuleFormProps) {
  const [draft, setDraft] = useState(initial);
  const [problem, setProblem] = useState<string>();
  const set = (changes: Partial<RuleDraft>) => setDraft((current) => ({ ...current, ...changes }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = ruleBodyOf(draft);
    setProblem('problem' in result ? result.problem : undefined);
    if ('body' in result) onSubmit(result.body);
  };
  const ratio = alertTypes[draft.type].unit === 'ratio';
  return (
    <form className="stack" onSubmit={submit} noValidate>
      <div className="filters">
        <label className="field">
          Name
          <input required maxLength={200} value={draft.name} onChange={(e) => set({ name: e.target.value })} placeholder="Bounces above 5%" />
        </label>
        <label className="field">
          Fires when
          <select value={draft.type} onChange={(e) => set({ type: e.target.value as AlertType })}>
            {Object.entries(alertTypes).map(([type, { label }]) => (
              <option key={type} value={type}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <div className="stack" style={{ gap: 4 }}>
          <label className="field">
            {ratio ? 'Threshold (ratio 0–1)' : 'Threshold (count)'}
            <input
              inputMode="decimal"
              required
              value={draft.threshold}
              onChange={(e) => set({ threshold: e.target.value })}
              aria-describedby={`${id}-threshold-hint`}
            />
          </label>
          <span id={`${id}-threshold-hint`} className="muted">
            {ratio ? '0.05 means 5% of the last hour’s emails' : 'events in the last hour'}
          </span>
        </div>
        <label className="field">
          Cooldown (minutes)
          <input inputMode="numeric" required value={draft.cooldownMinutes} onChange={(e) => set({ cooldownMinutes: e.target.value })} />
        </label>
      </div>
      <div className="filters">
        <label className="field">
          Channel
          <select value={draft.channel} onChange={(e) => set({ channel: e.target.value as Channel })}>
            {Object.entries(channels).map(([channel, label]) => (
              <option key={channel} value={channel}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label className="field" style={{ flex: '1 1 280px' }}>
          {draft.channel === 'email' ? 'Send to' : draft.channel === 'chat' ? 'Incoming webhook URL' : 'URL'}
          <input
            type={draft.channel === 'email' ? 'email' : 'url'}
            required
            value={draft.target}
            onChange={(e) => set({ target: e.target.value })}
            placeholder={draft.channel === 'email' ? 'oncall@example.com' : 'https://hooks.example.com/…'}
          />
        </label>
        {draft.channel === 'chat' ? (
          <label className="field">
            Chat channel (optional)
            <input value={draft.chatChannel} onChange={(e) => set({ chatChannel: e.target.value })} placeholder="#alerts" />
          </label>
        ) : null}
        <label className="switch">
          <input type="checkbox" checked={draft.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
          Enabled
        </label>
      </div>
      <FormFooter problem={problem} error={error} submitLabel={submitLabel} busy={busy} onCancel={onCancel} />
    </form>
  );
}
