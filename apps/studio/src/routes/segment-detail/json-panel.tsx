import { Copy } from 'lucide-react';
import { useEffect, useState } from 'react';
import { parseConditions, type Condition } from './conditions';

const pretty = (conditions: Condition) => JSON.stringify(conditions, null, 2);

/**
 * The tree as the API takes it, beside the builder: copy it for a curl or a script, or edit it and
 * load it into the builder. A builder edit replaces the text; unapplied typing is kept until then.
 */
export function ConditionsJson({ conditions, onApply }: { conditions: Condition; onApply(conditions: Condition): void }) {
  const text = pretty(conditions);
  const [draft, setDraft] = useState(text);
  const [problem, setProblem] = useState<string>();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    setDraft(text);
    setProblem(undefined);
    setCopied(false);
  }, [text]);
  const apply = () => {
    const parsed = parseConditions(draft);
    if ('problem' in parsed) setProblem(parsed.problem);
    else onApply(parsed.conditions);
  };
  return (
    <section className="card stack" aria-labelledby="json-heading">
      <h2 id="json-heading">Conditions as JSON</h2>
      <textarea aria-labelledby="json-heading" value={draft} spellCheck={false} onChange={(event) => setDraft(event.target.value)} style={{ minHeight: 220 }} />
      {problem === undefined ? null : (
        <div className="error-panel" role="alert">
          {problem}
        </div>
      )}
      <div className="row">
        <button type="button" disabled={draft === text} onClick={apply}>
          Load into the builder
        </button>
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard.writeText(draft);
            setCopied(true);
          }}
        >
          <Copy size={14} aria-hidden /> {copied ? 'Copied' : 'Copy JSON'}
        </button>
      </div>
    </section>
  );
}
