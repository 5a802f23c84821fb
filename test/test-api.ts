import { loadConfig, type Config } from '@waymark/core/config/config';
import { createLogger, type AppLogger } from '@waymark/core/logging/logger';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../apps/api/src/app';
import { createAppDeps, type AppDeps, type AppDepsOptions } from '../apps/api/src/deps';
import { integrationEnv } from './test-env';

export interface TestApi {
  url: string;
  app: FastifyInstance;
  deps: AppDeps;
  config: Config;
  /** fetch relative to the api, JSON in and out */
  request(method: string, path: string, options?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON
  text: string;
}

/**
 * A real api instance listening on a random port, built exactly as server.ts builds it; `logger`
 * instead of one on stdout (a test that reads the api's log lines).
 */
export async function startTestApi(overrides: Record<string, string | undefined> = {}, options: AppDepsOptions = {}, logger?: AppLogger): Promise<TestApi> {
  const config = loadConfig({ ...integrationEnv(), ...overrides });
  logger ??= createLogger({ level: config.logLevel, name: 'test-api', format: 'json', traceIds: config.tracing.enabled });
  const deps = await createAppDeps(config, logger, options);
  const app = await buildApp({ deps, logger });
  // a random port unless PORT is given (the studio test needs its own origin in API_PUBLIC_URL first)
  const address = await app.listen({ port: overrides.PORT === undefined ? 0 : config.port, host: '127.0.0.1' });
  return {
    url: address,
    app,
    deps,
    config,
    request: requestJson(address),
    async close() {
      await app.close();
      await deps.close();
    },
  };
}

/** fetch relative to an api at `address` (in this process or another), JSON in and out. */
export function requestJson(address: string): TestApi['request'] {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    const response = await fetch(`${address}${path}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
      redirect: 'manual',
    });
    const text = await response.text();
    let body: unknown = undefined;
    try {
      body = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, body, text };
  };
}

/** Issues a stored API key with `scopes` through the admin API (as an operator would) and returns its secret. */
export async function issueApiKey(api: TestApi, adminToken: string, name: string, scopes: string[]): Promise<string> {
  const response = await api.request('POST', '/v1/admin/api-keys', { token: adminToken, body: { name, scopes } });
  if (response.status !== 201) throw new Error(`creating API key ${name} answered ${response.status}: ${response.text}`);
  return response.body.key as string;
}
