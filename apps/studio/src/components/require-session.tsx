import { useEffect, type ReactNode } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { onUnauthorized } from '../api/client';
import { SessionProvider } from '../api/session';
import { useSessionForget, useSessionQuery } from '../data/auth/session-query';
import { ErrorPanel, Skeleton } from './feedback';

/** Renders its children for a signed-in person; everyone else goes to sign-in (and comes back after). */
export function RequireSession({ children }: { children: ReactNode }) {
  const location = useLocation();
  const navigate = useNavigate();
  const forgetSession = useSessionForget();
  const session = useSessionQuery();
  const next = `${location.pathname}${location.search}`;

  // any admin call answering 401 means the session ended (expired or revoked elsewhere)
  useEffect(
    () =>
      onUnauthorized(() => {
        forgetSession();
        void navigate(`/studio/sign-in?next=${encodeURIComponent(next)}`);
      }),
    [navigate, next, forgetSession],
  );

  if (session.isPending) {
    return (
      <main className="auth-page">
        <div className="auth-card">
          <Skeleton rows={3} />
        </div>
      </main>
    );
  }
  if (session.isError) {
    return (
      <main className="auth-page">
        <div className="auth-card">
          <ErrorPanel error={session.error} />
        </div>
      </main>
    );
  }
  if (session.data === null) return <Navigate to={`/studio/sign-in?next=${encodeURIComponent(next)}`} replace />;
  return <SessionProvider session={session.data}>{children}</SessionProvider>;
}
