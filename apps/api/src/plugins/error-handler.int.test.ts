import { loadConfig } from '@waymark/core/config/config';
import { createLogger } from '@waymark/core/logging/logger';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { integrationEnv } from '../../../../test/test-env';
import { buildApp } from '../app';
import { createAppDeps } from '../deps';

/** An app as server.ts builds it, plus one route that fails the way a bug would. */
async function appWithFailingRoute(nodeEnv: 'production' | 'development') {
  const config = loadConfig({ ...integrationEnv(), NODE_ENV: nodeEnv });
  const logger = createLogger({ level: 'error', name: 'error-test', format: 'json' });
  const deps = await createAppDeps(config, logger);
  const app = await buildApp({ deps, logger });
  app.get('/v1/failing', async () => {
    throw new Error('connection string postgres://secret@db leaked');
  });
  // PostgreSQL's own answer when it breaks a lock cycle, raised for real by the server
  app.get('/v1/deadlocked', async () => {
    await sql`do $$ begin raise exception using errcode = '40P01', message = 'deadlock detected'; end $$`.execute(deps.db);
    return {};
  });
  return {
    app,
    close: async () => {
      await app.close();
      await deps.close();
    },
  };
}

describe('error handler', () => {
  it('hides the message of a 500 in production', async () => {
    const { app, close } = await appWithFailingRoute('production');
    try {
      const response = await app.inject({ method: 'GET', url: '/v1/failing' });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ error: 'Internal server error' });
      expect(response.headers['x-request-id']).toBeTruthy();
    } finally {
      await close();
    }
  });

  it('answers a statement PostgreSQL aborted to break a deadlock with a 503 to retry, not a 500', async () => {
    const { app, close } = await appWithFailingRoute('development');
    try {
      const response = await app.inject({ method: 'GET', url: '/v1/deadlocked' });
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('1');
      expect(response.json()).toEqual({ error: 'Service busy: a concurrent change conflicted with this request; try again' });
    } finally {
      await close();
    }
  });

  it('shows it outside production, still as {error}', async () => {
    const { app, close } = await appWithFailingRoute('development');
    try {
      const response = await app.inject({ method: 'GET', url: '/v1/failing' });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ error: 'connection string postgres://secret@db leaked' });
    } finally {
      await close();
    }
  });
});
