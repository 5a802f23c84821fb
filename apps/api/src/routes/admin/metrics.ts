import { z } from 'zod';
import { badRequest } from '@waymark/core/errors/app-error';
import { getAdminMetrics } from '@waymark/core/metrics/admin-metrics';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, dateRangeQuery, mediaResponse, nullableTimestamp, timestamp } from '../../schemas/common';

const DAY_MS = 24 * 60 * 60 * 1000;
const rate = z.number().nullable();

const metricsSchema = z
  .object({
    window: z.object({ from: timestamp, to: timestamp }),
    events: z.object({ ingested: z.number() }),
    journeys: z.object({ entered: z.number(), completed: z.number(), failed: z.number(), exited: z.number() }),
    emails: z.object({
      sent: z.number(),
      delivered: z.number(),
      opened: z.number(),
      clicked: z.number(),
      bounced: z.number(),
      complained: z.number(),
      failed: z.number(),
      rates: z.object({ delivery: rate, open: rate, click: rate, bounce: rate, complaint: rate }),
    }),
    dlq: z.object({ pending: z.number() }),
    journeyStarts: z
      .object({
        pending: z.number().meta({ description: 'journey starts kept while Temporal was unreachable, not yet made by the worker (now, not over the window)' }),
        oldestPendingAt: nullableTimestamp.meta({ description: 'when the oldest of them was kept; null when none is pending' }),
      })
      .meta({ description: 'docs/operations.md, "Temporal outage": such starts are retried for JOURNEY_START_RETRY_HOURS, then parked in the DLQ' }),
  })
  .meta({ id: 'AdminMetrics' });

/** GET /v1/admin/metrics (read) and the Prometheus scrape endpoint GET /v1/metrics (read key). */
export const metricsRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/metrics',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['metrics'],
        summary: 'Headline numbers over [from, to) (default: the last 24 hours); rates are ratios of emails sent, null when none were sent',
        querystring: z.object(dateRangeQuery),
        response: { 200: metricsSchema, ...bearerErrors },
      },
    },
    async (request) => {
      const to = request.query.to ?? new Date();
      const from = request.query.from ?? new Date(to.getTime() - DAY_MS);
      if (from.getTime() >= to.getTime()) throw badRequest('from must be before to');
      return getAdminMetrics(deps.db, { from, to });
    },
  );

  app.get(
    '/v1/metrics',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['metrics'],
        summary: 'Prometheus text metrics of this api instance (bearer key with the read scope)',
        response: { 200: mediaResponse('Prometheus text exposition format 0.0.4', { 'text/plain': z.string() }), ...bearerErrors },
      },
    },
    async (_request, reply) => {
      const text = await deps.processMetrics.render();
      return reply.type('text/plain; version=0.0.4; charset=utf-8').send(text);
    },
  );
};
