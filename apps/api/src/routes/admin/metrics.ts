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
    eventEffects: z
      .object({
        pending: z.number().meta({
          description: 'journey effects of stored events (starts, signals, exits) kept in the outbox, not yet carried out (now, not over the window)',
        }),
        oldestPendingAt: nullableTimestamp.meta({ description: 'when the oldest of them was stored; null when none is kept' }),
      })
      .meta({
        description:
          'docs/operations.md, "Temporal outage": a few in flight is normal; they wait here while Temporal is unreachable and are retried for JOURNEY_START_RETRY_HOURS',
      }),
    journeyStarts: z
      .object({
        pending: z.number().meta({ description: 'the journey starts among the kept effects (now, not over the window)' }),
        oldestPendingAt: nullableTimestamp.meta({ description: 'when the oldest of them was stored; null when none is kept' }),
      })
      .meta({ description: 'docs/operations.md, "Temporal outage": a start not made within JOURNEY_START_RETRY_HOURS is parked in the DLQ' }),
    sendRate: z
      .object({
        limitPerSecond: z
          .number()
          .nullable()
          .meta({ description: "the installation's send budget per second; null: unlimited (neither SES_MAX_SEND_RATE nor SES GetAccount gave one)" }),
        source: z
          .enum(['env', 'ses', 'none'])
          .meta({ description: 'where the budget came from: SES_MAX_SEND_RATE, SES GetAccount (read every 10 minutes), or neither' }),
        currentPerSecond: z.number().nullable().meta({ description: 'send tokens handed out per second over the last 10 s; null when unlimited' }),
        waiting: z.number().meta({ description: 'sends waiting for their token (in a worker, or deferred to come back for their slot)' }),
        fallback: z.boolean().meta({ description: 'this api process cannot reach Redis: it sends at its share of the budget and shows its own figures' }),
        processes: z.number().meta({ description: 'processes sharing the budget (seen in Redis in the last 15 s)' }),
        sharePerSecond: z
          .number()
          .nullable()
          .meta({ description: "a process's rate while Redis is unreachable (SEND_RATE_WORKER_SHARE, or the budget / processes)" }),
        throttled: z.number().meta({ description: 'SES Throttling answers since Redis last lost the count (retried, never a failed attempt)' }),
      })
      .meta({ description: 'now, not over the window: the shared send budget (docs/email.md, "Send rate")' }),
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
      const [metrics, sendRate] = await Promise.all([getAdminMetrics(deps.db, { from, to }), deps.email.sendRate.snapshot()]);
      return { ...metrics, sendRate };
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
