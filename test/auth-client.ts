import { randomUUID } from 'node:crypto';
import type { Db } from '@waymark/core/db/database';
import { createAdmin } from '@waymark/core/organizations/admin-accounts';
import { emailsTo, waitFor } from './email-emulator';
import type { TestApi, TestResponse } from './test-api';

/** An api a browser can talk to: in this process (TestApi) or started as its own process. */
export type AuthTarget = Pick<TestApi, 'request'> & { config: { apiPublicUrl: string } };

/** A fresh administrator with a known password (unique email per call). */
export async function createTestAdmin(api: { deps: { db: Db } }, label = 'admin'): Promise<{ email: string; password: string; id: string }> {
  const email = `${label}-${randomUUID().slice(0, 8)}@waymark-test.example`;
  const password = `pw-${randomUUID()}`;
  const created = await createAdmin(api.deps.db, { email, password });
  return { email, password, id: created.user.id };
}

/** The `waymark_session` value a response set, if any. */
export function sessionCookieOf(response: TestResponse): string | undefined {
  for (const line of response.headers.getSetCookie()) {
    const match = /^waymark_session=([^;]*)/.exec(line);
    if (match) return match[1];
  }
  return undefined;
}

let clients = 0;

/**
 * A browser-like caller: keeps the session cookie and sends the API's own Origin on writes. Each
 * client has its own address (X-Forwarded-For; start the api with TRUST_PROXY=true), so the
 * per-client auth limits of one test do not spend another's.
 */
export class SessionClient {
  cookie: string | undefined;
  readonly ip = `10.${process.pid % 250}.${Math.floor(++clients / 250) % 250}.${clients % 250}`;
  constructor(private readonly api: AuthTarget) {}

  async request(
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; origin?: string | null } = {},
  ): Promise<TestResponse> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip, ...options.headers };
    if (this.cookie !== undefined) headers.cookie = `waymark_session=${this.cookie}`;
    const origin = options.origin === undefined ? this.api.config.apiPublicUrl : options.origin;
    if (origin !== null && method !== 'GET') headers.origin = origin;
    const response = await this.api.request(method, path, { body: options.body, headers });
    const set = sessionCookieOf(response);
    if (set !== undefined) this.cookie = set === '' ? undefined : set;
    return response;
  }

  async signIn(email: string, password: string): Promise<TestResponse> {
    return this.request('POST', '/api/auth/sign-in/email', { body: { email, password } });
  }
}

/** The token of the newest invitation emailed to `address` (after `already` earlier ones). */
export async function invitationTokenFor(address: string, already = 0): Promise<string> {
  const emails = await waitFor(
    async () => {
      const found = await emailsTo(address);
      return found.length > already ? found : undefined;
    },
    { what: `invitation to ${address}` },
  );
  const match = /\/studio\/accept-invite\?token=([a-z0-9]+)/.exec(emails.at(-1)?.body.html ?? '');
  if (!match?.[1]) throw new Error('no invitation link');
  return match[1];
}

/** The token of the newest password-reset link emailed to `address` (after `already` earlier ones). */
export async function resetTokenFor(address: string, already = 0): Promise<string> {
  const emails = await waitFor(
    async () => {
      const found = await emailsTo(address);
      return found.length > already ? found : undefined;
    },
    { what: `reset email to ${address}` },
  );
  const html = emails.at(-1)?.body.html ?? '';
  const match = /\/studio\/reset-password\?token=([a-z0-9]+)/.exec(html);
  if (!match?.[1]) throw new Error(`no reset link in ${html.slice(0, 500)}`);
  return match[1];
}
