import type { ReactNode } from 'react';
import { errorMessage } from '../api/client';

/** Placeholder rows while a list loads. */
export function Skeleton({ rows = 5 }: { rows?: number }) {
  return (
    <div aria-busy="true" aria-label="Loading" role="status">
      {Array.from({ length: rows }, (_, index) => (
        <div className="skeleton" key={index} style={{ width: `${90 - (index % 3) * 15}%` }} />
      ))}
    </div>
  );
}

/** An empty list: says what it would hold and what to do next. */
export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

/** The API's `{error}` message (or a network failure) where the data would be. */
export function ErrorPanel({ error }: { error: unknown }) {
  return (
    <div className="error-panel" role="alert">
      {errorMessage(error)}
    </div>
  );
}

const tone: Record<string, string> = {
  active: 'ok',
  waiting: 'warn',
  completed: '',
  failed: 'danger',
  exited: '',
  delivered: 'ok',
  opened: 'ok',
  clicked: 'ok',
  sent: '',
  bounced: 'danger',
  complained: 'danger',
  pending: 'warn',
  retried: 'ok',
  discarded: '',
  enabled: 'ok',
  disabled: '',
  revoked: 'danger',
  succeeded: 'ok',
  retrying: 'warn',
  skipped: '',
  quarantined: 'warn',
};

/** A status word in a pill, colored by meaning. */
export function Badge({ value }: { value: string }) {
  return <span className={`badge ${tone[value] ?? ''}`}>{value}</span>;
}
