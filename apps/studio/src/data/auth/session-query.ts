import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { authKeys } from './keys';

type CurrentSession = components['schemas']['CurrentSession'];
export type Role = components['schemas']['OrganizationMember']['role'];
export type Abilities = components['schemas']['Abilities'];

export interface SessionUser {
  id: string;
  email: string;
  name: string | null;
  /** the role in the active organization, which sets the admin-plane scope */
  role: Role;
  organization: { id: string; name: string } | null;
}

/** The signed-in person and what the server says their role allows (`can`). */
export interface SignedInSession {
  user: SessionUser;
  can: Abilities;
}

/**
 * Null when nobody is signed in (401): a query may not resolve to undefined (TanStack Query v5
 * turns that into an error, which showed "["session"] data is undefined" instead of going to sign-in).
 */
async function getSession(signal: AbortSignal): Promise<SignedInSession | null> {
  const result = await api.GET('/api/auth/get-session', { signal });
  if (result.response.status === 401) return null;
  return toSignedIn(unwrap(result));
}

/** The organization is the one the admin API acts in (the first, as no X-Waymark-Org is sent); with none, the studio shows a viewer. */
function toSignedIn({ user, organization, abilities }: CurrentSession): SignedInSession {
  return {
    user: {
      id: user.id,
      email: user.email,
      name: user.name,
      role: organization?.role ?? 'viewer',
      organization: organization === null ? null : { id: organization.id, name: organization.name },
    },
    can: abilities,
  };
}

export function useSessionQuery() {
  return useQuery({ queryKey: authKeys.session, queryFn: ({ signal }) => getSession(signal), staleTime: 60_000 });
}

/** Drops the cached session when any call answers 401 (the session ended), so the gate asks again after sign-in. */
export function useSessionForget(): () => void {
  const queryClient = useQueryClient();
  return useCallback(() => queryClient.removeQueries({ queryKey: authKeys.session }), [queryClient]);
}
