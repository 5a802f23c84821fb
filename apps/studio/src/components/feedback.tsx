import { useQueryClient } from '@tanstack/react-query';
import { Hourglass } from 'lucide-react';
import { useEffect, useState, type ReactNode } from 'react';
import { ApiError, errorMessage } from '../api/client';

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

/** The API's `{error}` message (or a network failure) where the data would be; a 429 gets the slow-down panel. */
export function ErrorPanel({ error }: { error: unknown }) {
  if (error instanceof ApiError && error.status === 429) return <SlowDownPanel retryAfterSeconds={error.retryAfterSeconds} />;
  return (
    <div className="error-panel" role="alert">
      {errorMessage(error)}
    </div>
  );
}

/** Seconds left until `total` seconds have passed since the first render. */
function useCountdown(total: number): number {
  const [left, setLeft] = useState(total);
  useEffect(() => {
    if (left <= 0) return undefined;
    const timer = setTimeout(() => setLeft((value) => value - 1), 1000);
    return () => clearTimeout(timer);
  }, [left]);
  return left;
}

/**
 * The API's rate limit was met and one automatic retry did not get past it (docs/studio.md,
 * "Slow down"): says so in plain words, counts down the Retry-After, then reloads the page's data.
 */
export function SlowDownPanel({ retryAfterSeconds }: { retryAfterSeconds: number | undefined }) {
  const queryClient = useQueryClient();
  const left = useCountdown(Math.ceil(retryAfterSeconds ?? 0));
  return (
    <section className="slow-down" role="alert" aria-labelledby="slow-down-title">
      <Hourglass size={20} aria-hidden />
      <div className="stack">
        <h2 id="slow-down-title">Slow down a little</h2>
        <p>
          Waymark answers a limited number of requests a minute for each person, and this page asked for more. Nothing is lost: your data is where you left it.
        </p>
        <div className="row">
          <button type="button" className="primary" disabled={left > 0} onClick={() => void queryClient.refetchQueries({ type: 'active' })}>
            {left > 0 ? `Try again in ${left} s` : 'Try again'}
          </button>
        </div>
      </div>
    </section>
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
  draft: '',
  scheduled: 'warn',
  sending: 'warn',
  testing: 'warn',
  paused: 'warn',
  cancelled: '',
  // the deliverability doctor's checks and the reputation breaker's states
  pass: 'ok',
  warn: 'warn',
  fail: 'danger',
  ok: 'ok',
  slowed: 'warn',
};

/** A status word in a pill, colored by meaning. */
export function Badge({ value }: { value: string }) {
  return <span className={`badge ${tone[value] ?? ''}`}>{value}</span>;
}
