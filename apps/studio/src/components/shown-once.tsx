import { Copy } from 'lucide-react';
import { useState } from 'react';

/**
 * A credential the API returns only once (an API key, a webhook signing secret): shown with a copy
 * button and a warning, because reloading the page loses it for good.
 */
export function ShownOnce({ what, value, testId }: { what: string; value: string; testId: string }) {
  // remembers which value was copied, so a newly created credential starts uncopied
  const [copied, setCopied] = useState<string>();
  return (
    <div className="notice stack" role="status">
      <strong>Copy the {what} now: it is shown only once.</strong>
      <div className="row">
        <code data-testid={testId}>{value}</code>
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard.writeText(value);
            setCopied(value);
          }}
        >
          <Copy size={14} aria-hidden /> {copied === value ? 'Copied' : 'Copy'}
        </button>
      </div>
    </div>
  );
}
