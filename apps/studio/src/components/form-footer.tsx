import { ErrorPanel } from './feedback';

interface FormFooterProps {
  /** what the studio found wrong before sending (client-side check of the API's rules) */
  problem: string | undefined;
  /** the API's answer when it refused */
  error: unknown;
  submitLabel: string;
  busy: boolean;
  onCancel?: (() => void) | undefined;
}

/** The end of a create/edit form: what is wrong (ours, then the server's), submit, and cancel when editing. */
export function FormFooter({ problem, error, submitLabel, busy, onCancel }: FormFooterProps) {
  return (
    <>
      {problem === undefined ? null : (
        <div className="error-panel" role="alert">
          {problem}
        </div>
      )}
      {error === null || error === undefined ? null : <ErrorPanel error={error} />}
      <div className="row">
        <button type="submit" className="primary" disabled={busy}>
          {submitLabel}
        </button>
        {onCancel === undefined ? null : (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </>
  );
}
