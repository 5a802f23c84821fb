import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAdmin, resetTokenFor, SessionClient } from '../../../../../test/auth-client';
import { emailsTo } from '../../../../../test/email-emulator';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

/** Issue 34, "Passwords": a reset request tells nothing about the address, and only the newest link for the current password works. */
describe('password reset (security)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ TRUST_PROXY: 'true' });
  });
  afterAll(() => api?.close());

  const requestReset = (email: string) => new SessionClient(api).request('POST', '/api/auth/request-password-reset', { body: { email } });
  const reset = (token: string) => api.request('POST', '/api/auth/reset-password', { body: { token, newPassword: `new password ${randomUUID()}` } });

  it('a password change revokes an outstanding reset token', async () => {
    const admin = await createTestAdmin(api, 'sec-change');
    expect((await requestReset(admin.email)).status).toBe(200);
    const token = await resetTokenFor(admin.email);
    const client = new SessionClient(api);
    expect((await client.signIn(admin.email, admin.password)).status).toBe(200);
    const changed = await client.request('POST', '/api/auth/change-password', { body: { currentPassword: admin.password, newPassword: 'a changed password' } });
    expect(changed.status, changed.text).toBe(200);
    expect(await reset(token)).toMatchObject({ status: 400, body: { code: 'INVALID_TOKEN' } });
  });

  it('a newer reset revokes the older token; the newer one works', async () => {
    const admin = await createTestAdmin(api, 'sec-newer');
    await requestReset(admin.email);
    const older = await resetTokenFor(admin.email);
    await requestReset(admin.email);
    const newer = await resetTokenFor(admin.email, 1);
    expect(newer).not.toBe(older);
    expect(await reset(older)).toMatchObject({ status: 400, body: { code: 'INVALID_TOKEN' } });
    expect((await reset(newer)).status).toBe(200);
  });

  it('the answer leaves before any work for the address: it answers while the users table is locked, known or not', async () => {
    const admin = await createTestAdmin(api, 'sec-timing');
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockHeld = new Promise<void>((resolve) => (locked = resolve));
    const holder = api.deps.db.transaction().execute(async (trx) => {
      await sql`lock table users in access exclusive mode`.execute(trx);
      locked();
      await released;
    });
    try {
      await lockHeld;
      // with the lookup before the answer, these would wait for the lock (and the test time out)
      const known = await requestReset(admin.email);
      const unknown = await requestReset(`nobody-${randomUUID()}@waymark-test.example`);
      expect([known.status, unknown.status]).toEqual([200, 200]);
      expect(known.text).toBe(unknown.text);
      expect(await emailsTo(admin.email)).toHaveLength(0);
    } finally {
      release();
      await holder;
    }
    // the work ran after the answer: the link arrives once the table is free
    expect(await resetTokenFor(admin.email)).toMatch(/^[a-z0-9]+$/);
  });
});
