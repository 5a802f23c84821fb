import { ApiError } from './client';
import type { SessionUser } from './session';

export interface SessionResponse {
  user: SessionUser;
  session: { id: string; expiresAt: string };
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const payload = (await response.json().catch(() => ({}))) as { error?: string };
  if (!response.ok) throw new ApiError(response.status, payload.error ?? `Request failed (${response.status})`);
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
