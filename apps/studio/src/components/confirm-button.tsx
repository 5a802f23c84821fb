import { useRef, useState, type ReactNode } from 'react';
import { errorMessage } from '../api/client';

interface ConfirmButtonProps {
  label: ReactNode;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** when set, the person must type this text to enable the confirm button (GDPR delete) */
  typedConfirmation?: string;
  danger?: boolean;
  onConfirm(): Promise<unknown>;
}

/** A button that asks first in a modal <dialog> (focus trapped, Escape closes) and shows a failure inside it. */
export function ConfirmButton({ label, title, children, confirmLabel, typedConfirmation, danger, onConfirm }: ConfirmButtonProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const close = () => {
    dialog.current?.close();
    setTyped('');
    setError(undefined);
  };
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm();
      close();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };
  const blocked = typedConfirmation !== undefined && typed !== typedConfirmation;
  return (
    <>
      <button type="button" className={danger === true ? 'danger' : undefined} onClick={() => dialog.current?.showModal()}>
        {label}
      </button>
      <dialog ref={dialog} aria-label={title} onClose={close}>
        <div className="stack">
          <h2>{title}</h2>
          <div>{children}</div>
          {typedConfirmation === undefined ? null : (
            <label className="field">
              Type <code>{typedConfirmation}</code> to confirm
              <input value={typed} onChange={(event) => setTyped(event.target.value)} autoComplete="off" />
            </label>
          )}
          {error === undefined ? null : (
            <div className="error-panel" role="alert">
              {error}
            </div>
          )}
          <div className="row">
            <button type="button" className={danger === true ? 'danger' : 'primary'} disabled={busy || blocked} onClick={() => void confirm()}>
              {confirmLabel}
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
          </div>
        </div>
      </dialog>
    </>
  );
}
