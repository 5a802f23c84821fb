import { loadConfig } from '@waymark/core/config/config';
import { createLogger } from '@waymark/core/logging/logger';
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
