import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { getSession, listOrganizations } from '../api/auth';
import { onUnauthorized } from '../api/client';
import { SessionProvider, type SessionUser } from '../api/session';
import { ErrorPanel, Skeleton } from './feedback';

export const SESSION_QUERY = ['session'] as const;

/** Renders its children for a signed-in person; everyone else goes to sign-in (and comes back after). */
export function RequireSession({ children }: { children: ReactNode }) {
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const session = useQuery({ queryKey: SESSION_QUERY, queryFn: loadSessionUser, staleTime: 60_000 });
  const next = `${location.pathname}${location.search}`;

  // any admin call answering 401 means the session ended (expired or revoked elsewhere)
  useEffect(
    () =>
      onUnauthorized(() => {
        queryClient.removeQueries({ queryKey: SESSION_QUERY });
        void navigate(`/studio/sign-in?next=${encodeURIComponent(next)}`);
      }),
    [navigate, next, queryClient],
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
  return <SessionProvider user={session.data}>{children}</SessionProvider>;
}

/**
 * The signed-in person with the role the API will apply: their role in the first organization
 * (the API's default when no X-Waymark-Org header is sent). Null when nobody is signed in: a query
 * may not resolve to undefined (TanStack Query v5 turns that into an error, which showed
 * "["session"] data is undefined" instead of going to sign-in).
 */
async function loadSessionUser(): Promise<SessionUser | null> {
  const session = await getSession();
  if (session === undefined) return null;
  const { organizations } = await listOrganizations();
  const active = organizations[0];
  return {
    id: session.user.id,
    email: session.user.email,
    name: session.user.name,
    role: active?.role ?? 'viewer',
    organization: active === undefined ? null : { id: active.id, name: active.name },
  };
}
