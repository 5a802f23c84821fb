import { useState, type FormEvent } from 'react';
import type { components } from '../../../api/schema';
import { FormFooter } from '../../../components/form-footer';
import { eventGroups, eventTypeHints, eventTypes, type EventType } from './event-types';

type Endpoint = components['schemas']['WebhookEndpoint'];

export interface EndpointInput {
  url: string;
  events: EventType[];
  description: string;
  enabled: boolean;
}

/** The API's bounds (POST/PATCH /v1/admin/webhook-endpoints), checked before sending. */
const URL_MAX = 2048;
const DESCRIPTION_MAX = 500;

/** The first problem with the input, in the API's words, or undefined when it may be sent. */
export function endpointInputProblem(input: EndpointInput): string | undefined {
  let parsed: URL | undefined;
  try {
    parsed = new URL(input.url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) return 'URL must be an http(s) URL';
  if (input.url.length > URL_MAX) return `URL must be at most ${URL_MAX} characters`;
  if (input.events.length === 0) return 'Choose at least one event type';
  if (input.description.trim().length > DESCRIPTION_MAX) return `Description must be at most ${DESCRIPTION_MAX} characters`;
  return undefined;
}

export function inputOf(endpoint: Endpoint | undefined): EndpointInput {
  return {
    url: endpoint?.url ?? '',
    events: (endpoint?.events ?? []).filter((type): type is EventType => type in eventTypeHints),
    description: endpoint?.description ?? '',
    enabled: endpoint?.enabled ?? true,
  };
}

interface EndpointFormProps {
  initial: EndpointInput;
  submitLabel: string;
  busy: boolean;
  error: unknown;
  onSubmit(input: EndpointInput): void;
  onCancel?: () => void;
}

/** URL, description, event types and enabled: creating an endpoint and editing one. */
export function EndpointForm({ initial, submitLabel, busy, error, onSubmit, onCancel }: EndpointFormProps) {
  const [input, setInput] = useState(initial);
  const [problem, setProblem] = useState<string>();
  const toggle = (type: EventType, on: boolean) =>
    setInput((current) => ({ ...current, events: on ? [...current.events, type] : current.events.filter((chosen) => chosen !== type) }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = endpointInputProblem(input);
    setProblem(found);
    if (found === undefined) onSubmit(input);
  };
  return (
    <form className="stack" onSubmit={submit} noValidate>
      <div className="filters">
        <label className="field" style={{ flex: '2 1 320px' }}>
          URL
          <input
            type="url"
            required
            maxLength={URL_MAX}
            value={input.url}
            onChange={(e) => setInput({ ...input, url: e.target.value })}
            placeholder="https://crm.example.com/hooks/waymark"
          />
        </label>
        <label className="field" style={{ flex: '1 1 220px' }}>
          Description (optional)
          <input maxLength={DESCRIPTION_MAX} value={input.description} onChange={(e) => setInput({ ...input, description: e.target.value })} />
        </label>
      </div>
      <div className="row" style={{ alignItems: 'flex-start', gap: 24 }}>
        {eventGroups.map(({ group, types }) => (
          <fieldset key={group} className="stack" style={{ gap: 4, border: 'none', padding: 0, margin: 0 }}>
            <legend className="muted">{group} events</legend>
            {types.map((type) => (
              <label key={type} className="switch" title={eventTypeHints[type]}>
                <input type="checkbox" checked={input.events.includes(type)} onChange={(e) => toggle(type, e.target.checked)} />
                <code>{type}</code>
              </label>
            ))}
          </fieldset>
        ))}
      </div>
      <div className="row">
        <button type="button" onClick={() => setInput({ ...input, events: input.events.length === eventTypes.length ? [] : [...eventTypes] })}>
          {input.events.length === eventTypes.length ? 'Clear event types' : 'Every event type'}
        </button>
        <label className="switch">
          <input type="checkbox" checked={input.enabled} onChange={(e) => setInput({ ...input, enabled: e.target.checked })} />
          Enabled
        </label>
      </div>
      <FormFooter problem={problem} error={error} submitLabel={submitLabel} busy={busy} onCancel={onCancel} />
    </form>
  );
}
