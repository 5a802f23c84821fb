import { z } from 'zod';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { addressCeiling } from '../../plugins/rate-limit';
import { errorBody } from '../../schemas/common';

const healthResponse = z.object({
  status: z.enum(['healthy', 'degraded']),
  uptime: z.number(),
  timestamp: z.string(),
  version: z.string(),
  warnings: z
    .array(z.string())
    .optional()
    .meta({ description: 'outside production only: the unsafe settings production would refuse to start with (docs/security.md)' }),
});

/** Degraded when PostgreSQL, Redis or Temporal does not answer; the log says which. */
export const healthRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  const checks: Record<string, () => Promise<unknown>> = {
    postgres: () => deps.pingDatabase(),
    redis: () => deps.redis.ping(),
    temporal: () => deps.temporal.ping(),
  };

  app.get(
    '/v1/health',
    {
      // Load balancers and orchestrators poll this, so it is outside the per-caller limit; a budget
      // per address of its own (HEALTH_RATE_LIMIT_MAX) far above any poller's rate keeps a stranger
      // from turning each request into three backend pings.
      config: { rateLimit: false },
      onRequest: addressCeiling(app, { name: 'health', max: deps.config.rateLimit.healthMax }),
      schema: {
        tags: ['service'],
        summary: 'Service health (its own budget per address: HEALTH_RATE_LIMIT_MAX a window, then 429 with Retry-After)',
        response: { 200: healthResponse, 429: errorBody },
      },
    },
    async (request) => {
      const results = await Promise.all(
        Object.entries(checks).map(async ([name, check]) => {
          try {
            await withTimeout(check(), 2_000);
            return undefined;
          } catch (error) {
            request.log.warn({ err: error, dependency: name }, `health: ${name} unreachable`);
            return name;
          }
        }),
      );
      const down = results.filter((name) => name !== undefined);
      return {
        status: down.length === 0 ? ('healthy' as const) : ('degraded' as const),
        uptime: Math.round(process.uptime()),
        timestamp: new Date().toISOString(),
        version: deps.version,
        ...(deps.settingsWarnings.length > 0 ? { warnings: [...deps.settingsWarnings] } : {}),
      };
    },
  );
};

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
