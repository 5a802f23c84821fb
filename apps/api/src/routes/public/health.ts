import { z } from 'zod';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';

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
      // Load balancers and orchestrators poll this; a 429 here would take a healthy instance out.
      config: { rateLimit: false },
      schema: { tags: ['service'], summary: 'Service health (not rate limited)', response: { 200: healthResponse } },
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
