import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EncryptionCodec } from '@waymark/temporal/payload-codec';
import { createTestAdmin, SessionClient } from '../../../../../test/auth-client';
import { issueApiKey, startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const TEMPORAL_UI = 'http://temporal-ui.waymark.test:8233';

const base64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');

/** docs/deploy.md, "Secrets": the Temporal Web UI reads sealed payloads through this codec endpoint. */
describe('POST /v1/admin/temporal-codec/decode (the Temporal Web UI’s remote codec)', () => {
  let api: TestApi;
  let readKey: string;
  let sealed: { metadata: Record<string, string>; data: string };
  const plain = { metadata: { encoding: base64('json/plain') }, data: base64(JSON.stringify({ userEmail: 'ada@example.com' })) };

  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, TEMPORAL_UI_URL: `${TEMPORAL_UI}/` });
    readKey = await issueApiKey(api, LEGACY, 'codec-reader', ['read']);
    // a payload as the worker seals it into the history
    const [payload] = await new EncryptionCodec(api.config.encryptionKeys ?? []).encode([
      { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify({ userEmail: 'ada@example.com' })) },
    ]);
    sealed = {
      metadata: Object.fromEntries(Object.entries(payload!.metadata ?? {}).map(([name, value]) => [name, base64(value ?? new Uint8Array())])),
      data: base64(payload!.data ?? new Uint8Array()),
    };
  });
  afterAll(() => api.close());

  it('opens a sealed payload and leaves a plain one as it is, in order, for a full-admin key', async () => {
    expect(Buffer.from(sealed.data, 'base64').toString()).not.toContain('ada@example.com');
    const decoded = await api.request('POST', '/v1/admin/temporal-codec/decode', { token: LEGACY, body: { payloads: [sealed, plain] } });
    expect(decoded.status, decoded.text).toBe(200);
    expect(decoded.body).toEqual({ payloads: [plain, plain] });
  });

  it("shows a template's secret prop as [redacted], and its value wherever else the call's payloads hold it", async () => {
    const link = `https://app.example.com/reset?token=${randomUUID()}`;
    const seal = async (value: unknown) => {
      const [payload] = await new EncryptionCodec(api.config.encryptionKeys ?? []).encode([
        { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(value)) },
      ]);
      return {
        metadata: Object.fromEntries(Object.entries(payload!.metadata ?? {}).map(([name, value]) => [name, base64(value ?? new Uint8Array())])),
        data: base64(payload!.data ?? new Uint8Array()),
      };
    };
    // an activity's input with the email's data (auth-password-reset declares resetUrl secret), and the event it came from
    const sent = await seal({ templateKey: 'auth-password-reset', data: { resetUrl: link, expiresInMinutes: 15 } });
    const trigger = await seal({ name: 'password.reset_requested', properties: { link } });
    const decoded = await api.request('POST', '/v1/admin/temporal-codec/decode', { token: LEGACY, body: { payloads: [trigger, sent] } });
    expect(decoded.status, decoded.text).toBe(200);
    const shown = decoded.body.payloads.map((payload: { data: string }) => JSON.parse(Buffer.from(payload.data, 'base64').toString()));
    expect(shown).toEqual([
      { name: 'password.reset_requested', properties: { link: '[redacted]' } },
      { templateKey: 'auth-password-reset', data: { resetUrl: '[redacted]', expiresInMinutes: 15 } },
    ]);
    expect(decoded.text).not.toContain(base64(link).slice(0, 20));
  });

  it('refuses a read key (403) and no credential (401); a payload marked sealed that does not open is a 400', async () => {
    expect((await api.request('POST', '/v1/admin/temporal-codec/decode', { token: readKey, body: { payloads: [sealed] } })).status).toBe(403);
    expect((await api.request('POST', '/v1/admin/temporal-codec/decode', { body: { payloads: [sealed] } })).status).toBe(401);
    const altered = { ...sealed, data: base64(Buffer.from(sealed.data, 'base64').map((byte, index) => (index === 20 ? byte ^ 1 : byte))) };
    const refused = await api.request('POST', '/v1/admin/temporal-codec/decode', { token: LEGACY, body: { payloads: [plain, altered] } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('payloads[1] is marked sealed but does not open under ENCRYPTION_KEYS (not sealed by this installation, or altered)');
  });

  it("answers the UI's preflight with credentials for TEMPORAL_UI_URL's origin alone; other paths keep credential-less CORS", async () => {
    const preflight = (path: string, origin: string) =>
      fetch(`${api.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace' },
      });
    const ui = await preflight('/v1/admin/temporal-codec/decode', TEMPORAL_UI);
    expect(ui.headers.get('access-control-allow-origin')).toBe(TEMPORAL_UI);
    expect(ui.headers.get('access-control-allow-credentials')).toBe('true');
    expect(ui.headers.get('access-control-allow-headers')).toContain('x-namespace');
    const other = await preflight('/v1/admin/temporal-codec/decode', 'https://evil.example');
    expect(other.headers.get('access-control-allow-origin')).not.toBe('https://evil.example');
    const elsewhere = await preflight('/v1/admin/contacts', TEMPORAL_UI);
    expect(elsewhere.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it("takes a person's session from the Temporal UI's origin on this path only; another origin is refused as CSRF", async () => {
    const admin = await createTestAdmin(api);
    const browser = new SessionClient(api);
    await browser.signIn(admin.email, admin.password);
    const fromUi = await browser.request('POST', '/v1/admin/temporal-codec/decode', { body: { payloads: [sealed] }, origin: TEMPORAL_UI });
    expect(fromUi.status, fromUi.text).toBe(200);
    expect(fromUi.body).toEqual({ payloads: [plain] });
    const fromElsewhere = await browser.request('POST', '/v1/admin/temporal-codec/decode', { body: { payloads: [sealed] }, origin: 'https://evil.example' });
    expect(fromElsewhere).toMatchObject({ status: 403, body: { error: 'Invalid origin' } });
    // the UI's origin is trusted for the codec alone, not for the admin plane's changes
    const change = await browser.request('POST', '/v1/admin/api-keys', { body: { name: 'from-ui', scopes: ['read'] }, origin: TEMPORAL_UI });
    expect(change).toMatchObject({ status: 403, body: { error: 'Invalid origin' } });
  });
});
