import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Cookie } from 'lucia';
import { SESSION_COOKIE_NAME, type ActiveSession, type SessionManager } from '@waymark/core/auth/sessions/session-manager';
import { hashToken } from '@waymark/core/tokens/tokens';
import { unauthorized } from '@waymark/core/errors/app-error';

export function setCookie(reply: FastifyReply, cookie: Cookie): void {
  void reply.setCookie(cookie.name, cookie.value, cookie.attributes);
}

export function readSessionCookie(request: FastifyRequest): string | undefined {
  const value = request.cookies[SESSION_COOKIE_NAME];
  return value === undefined || value === '' ? undefined : value;
}

const validations = new WeakMap<FastifyRequest, Promise<ActiveSession | undefined>>();

/**
 * The session behind the request's cookie, validated once per request: the rate limit (which
 * counts per user) and authentication both ask, and a refresh made by the first asker must still
 * reach the cookie written by `currentSession`.
 */
export function validateSession(sessions: SessionManager, request: FastifyRequest): Promise<ActiveSession | undefined> {
  const token = readSessionCookie(request);
  if (token === undefined) return Promise.resolve(undefined);
  let validation = validations.get(request);
  if (validation === undefined) {
    validation = sessions.validate(token);
    validations.set(request, validation);
  }
  return validation;
}

/**
 * The live session of the request's cookie. A refreshed session has its cookie sent again; a
 * dead cookie (expired, revoked, unknown) is cleared so the browser stops sending it.
 */
export async function currentSession(sessions: SessionManager, request: FastifyRequest, reply: FastifyReply): Promise<ActiveSession | undefined> {
  if (readSessionCookie(request) === undefined) return undefined;
  const session = await validateSession(sessions, request);
  if (session === undefined) setCookie(reply, sessions.blankCookie());
  else if (session.refreshed) setCookie(reply, sessions.cookie(session));
  return session;
}

export async function requireSession(sessions: SessionManager, request: FastifyRequest, reply: FastifyReply): Promise<ActiveSession> {
  const session = await currentSession(sessions, request, reply);
  if (session === undefined) throw unauthorized('Not signed in');
  return session;
}

/** What clients see as a session id: its digest, so response bodies never hold the cookie value. */
export function publicSession(session: ActiveSession): { id: string; expiresAt: Date } {
  return { id: hashToken(session.id), expiresAt: session.expiresAt };
}
