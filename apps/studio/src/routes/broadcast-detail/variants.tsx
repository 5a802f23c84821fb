import { Plus, Trash2 } from 'lucide-react';
import { Options } from '../../components/options';
import { metrics, nextVariantId, type ComposerState, type VariantState } from './form-state';

interface VariantsProps {
  state: ComposerState;
  set(changes: Partial<ComposerState>): void;
  templates: string[];
}

/** 2–5 variants (subject or template), split evenly, or tested on a share with the winner sent to the rest. */
export function VariantsEditor({ state, set, templates }: VariantsProps) {
  const { variants } = state;
  const change = (index: number, changes: Partial<VariantState>) =>
    set({ variants: variants.map((variant, at) => (at === index ? { ...variant, ...changes } : variant)) });
  const add = () => {
    // the first click makes two: one variant alone is nothing to compare
    const first = variants.length === 0 ? [{ id: 'a', subject: state.subject, templateKey: '' }] : variants;
    set({ variants: [...first, { id: nextVariantId(first), subject: '', templateKey: '' }] });
  };
  return (
    <section className="card stack" aria-labelledby="variants-heading">
      <h2 id="variants-heading">Variants and A/B test</h2>
      {variants.length === 0 ? <p className="muted">One version for everyone. Add variants to try other subjects or templates.</p> : null}
      {variants.map((variant, index) => (
        <fieldset className="condition" key={index}>
          <legend>Variant {variant.id || index + 1}</legend>
          <div className="row condition-fields">
            <label className="field">
              Id
              <input value={variant.id} onChange={(event) => change(index, { id: event.target.value })} style={{ width: 90 }} />
            </label>
            <label className="field" style={{ flex: 1 }}>
              Subject
              <input value={variant.subject} placeholder="the broadcast's subject" onChange={(event) => change(index, { subject: event.target.value })} />
            </label>
            <label className="field">
              Template
              <select value={variant.templateKey} onChange={(event) => change(index, { templateKey: event.target.value })}>
                <option value="">the broadcast's template</option>
                <Options items={templates} />
              </select>
            </label>
            <button
              type="button"
              className="condition-remove"
              aria-label={`Remove variant ${variant.id || index + 1}`}
              onClick={() => set({ variants: variants.length <= 2 ? [] : variants.filter((_, at) => at !== index) })}
            >
              <Trash2 size={14} aria-hidden /> Remove
            </button>
          </div>
        </fieldset>
      ))}
      {variants.length < 5 ? (
        <div className="row">
          <button type="button" onClick={add}>
            <Plus size={14} aria-hidden /> {variants.length === 0 ? 'Add variants' : 'Add a variant'}
          </button>
        </div>
      ) : null}
      {variants.length >= 2 ? (
        <>
          <label className="switch">
            <input type="checkbox" checked={state.abTest} onChange={(event) => set({ abTest: event.target.checked })} />
            Test on a share first, then send the winner to the rest
          </label>
          {state.abTest ? (
            <div className="row condition-fields">
              <label className="field">
                Test share (%)
                <input
                  type="number"
                  min={2}
                  max={50}
                  value={state.testPercent}
                  onChange={(event) => set({ testPercent: event.target.value })}
                  style={{ width: 100 }}
                />
              </label>
              <label className="field">
                Winner by
                <select value={state.metric} onChange={(event) => set({ metric: event.target.value as ComposerState['metric'] })}>
                  <Options items={metrics.map((metric) => [metric.value, metric.label] as const)} />
                </select>
              </label>
              <label className="field">
                Pick after (minutes)
                <input
                  type="number"
                  min={5}
                  max={10080}
                  value={state.waitMinutes}
                  onChange={(event) => set({ waitMinutes: event.target.value })}
                  style={{ width: 120 }}
                />
              </label>
            </div>
          ) : (
            <p className="muted">Without a test, the variants split the whole audience evenly.</p>
          )}
        </>
      ) : null}
    </section>
  );
}
