import { ApiError } from './client';
import { fetchRetrying429 } from './retry-429';
import type { components } from './schema';
import type { Role } from './session';

export interface SessionResponse {
  /** `role` here is the installation role (admin/member); the studio acts on the organization role */
  user: { id: string; email: string; name: string | null; role: string };
  session: { id: string; expiresAt: string };
}

export interface Organization {
  id: string;
  name: string;
  slug: string;
  role: Role;
}

async function call<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const response = await fetchRetrying429(
    new Request(new URL(path, window.location.origin), {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  const payload: unknown = await response.json().catch(() => ({}));
  if (!response.ok) throw ApiError.of(response, payload);
  return payload as T;
}

/** The current session, or undefined when nobody is signed in (401). */
export async function getSession(): Promise<SessionResponse | undefined> {
  try {
    return await call<SessionResponse>('GET', '/api/auth/get-session');
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return undefined;
    throw error;
  }
}

export const signIn = (input: { email: string; password: string; rememberMe?: boolean }) => call<SessionResponse>('POST', '/api/auth/sign-in/email', input);
export const signOut = () => call<{ ok: true }>('POST', '/api/auth/sign-out', {});
export const requestPasswordReset = (email: string) => call<{ ok: true }>('POST', '/api/auth/request-password-reset', { email });
export const resetPassword = (token: string, newPassword: string) => call<{ ok: true }>('POST', '/api/auth/reset-password', { token, newPassword });
export const acceptInvitation = (input: { token: string; password: string; name?: string }) =>
  call<SessionResponse>('POST', '/api/auth/accept-invitation', input);

/** The organizations of the signed-in user; the API scopes a session by the first one (or X-Waymark-Org). */
export const listOrganizations = () => call<{ organizations: Organization[] }>('GET', '/api/auth/organization/list');

export interface Member {
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  joinedAt: string;
}

/** `/api/auth/organization/{orgId}/…` with every segment encoded. */
function orgPath(orgId: string, ...segments: string[]): string {
  return ['/api/auth/organization', ...[orgId, ...segments].map(encodeURIComponent)].join('/');
}

export const listMembers = (orgId: string) => call<{ members: Member[] }>('GET', orgPath(orgId, 'members'));
export const inviteMember = (orgId: string, input: { email: string; role: Role }) =>
  call<{ invitation: { id: string; email: string; role: Role; expiresAt: string } }>('POST', orgPath(orgId, 'invite'), input);
export const changeMemberRole = (orgId: string, userId: string, role: Role) => call<unknown>('PATCH', orgPath(orgId, 'members', userId), { role });
export const removeMember = (orgId: string, userId: string) => call<{ ok: true }>('DELETE', orgPath(orgId, 'members', userId));

export type PendingInvitation = components['schemas']['PendingInvitation'];

/** Invitations not accepted yet and not expired (owners and admins only). */
export const listInvitations = (orgId: string) => call<{ invitations: PendingInvitation[] }>('GET', orgPath(orgId, 'invitations'));
export const revokeInvitation = (orgId: string, invitationId: string) => call<{ ok: true }>('DELETE', orgPath(orgId, 'invitations', invitationId));
