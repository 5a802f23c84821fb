import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAdmin, SessionClient } from '../../../../test/auth-client';
import { startTestApi, type TestApi } from '../../../../test/test-api';

describe('/api/auth sign-in, get-session, sign-out', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it('signs in with a cookie, reads the session, signs out', async () => {
    const admin = await createTestAdmin(api);
    const browser = new SessionClient(api);
    const signedIn = await browser.signIn(admin.email.toUpperCase(), admin.password);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({
      user: { id: admin.id, email: admin.email, name: null, role: 'admin' },
      session: { id: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    const setCookie = signedIn.headers.getSetCookie().find((line) => line.startsWith('waymark_session='));
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).not.toMatch(/Secure/i);

    const session = await browser.request('GET', '/api/auth/get-session');
    expect(session).toMatchObject({ status: 200, body: { user: { id: admin.id }, session: { id: signedIn.body.session.id } } });

    const out = await browser.request('POST', '/api/auth/sign-out');
    expect(out).toMatchObject({ status: 200, body: { ok: true } });
    expect(browser.cookie).toBeUndefined();
    expect((await api.request('GET', '/api/auth/get-session')).status).toBe(401);
  });

  it('answers a wrong password and an unknown email alike', async () => {
    const admin = await createTestAdmin(api);
    const wrong = await new SessionClient(api).signIn(admin.email, 'not-the-password');
    const unknown = await new SessionClient(api).signIn(`nobody-${admin.id}@waymark-test.example`, 'not-the-password');
    for (const response of [wrong, unknown]) {
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: 'Invalid email or password', code: 'INVALID_EMAIL_OR_PASSWORD' });
    }
  });

  it('closes public sign-up with its code', async () => {
    const response = await api.request('POST', '/api/auth/sign-up/email', { body: { email: 'a@b.co', password: 'long enough password' } });
    expect(response).toMatchObject({ status: 400, body: { error: 'Email and password sign up is not enabled', code: 'EMAIL_PASSWORD_SIGN_UP_DISABLED' } });
  });

  it('documents every /api/auth route in OpenAPI with its request and response schemas', async () => {
    const spec = await api.request('GET', '/openapi.json');
    const paths = spec.body.paths as Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
    const routes: [string, string, boolean][] = [
      ['post', '/api/auth/sign-in/email', true],
      ['post', '/api/auth/sign-up/email', false],
      ['get', '/api/auth/get-session', false],
      ['post', '/api/auth/sign-out', false],
      ['post', '/api/auth/request-password-reset', true],
      ['post', '/api/auth/reset-password', true],
      ['post', '/api/auth/change-password', true],
      ['get', '/api/auth/organization/list', false],
      ['post', '/api/auth/organization/create', true],
      ['get', '/api/auth/organization/{orgId}/members', false],
      ['patch', '/api/auth/organization/{orgId}/members/{userId}', true],
      ['delete', '/api/auth/organization/{orgId}/members/{userId}', false],
      ['post', '/api/auth/organization/{orgId}/invite', true],
      ['post', '/api/auth/accept-invitation', true],
    ];
    for (const [method, path, hasBody] of routes) {
      const operation = paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      if (hasBody) expect(operation?.requestBody, `${method} ${path} body`).toBeDefined();
      expect(Object.keys(operation?.responses ?? {}).length, `${method} ${path} responses`).toBeGreaterThan(0);
    }
    expect(spec.body.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'waymark_session' });
  });
});
