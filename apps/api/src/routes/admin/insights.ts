import { z } from 'zod';
import { getJourneyFunnel } from '@waymark/core/journeys/journey-funnel';
import { getActivitySeries } from '@waymark/core/metrics/activity-series';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody, timestamp } from '../../schemas/common';

const count = z.number().int();

/** The series behind the studio's overview charts and journey funnels (read). */
export const insightRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/metrics/activity',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['metrics'],
        summary: 'Events per hour and email outcomes per day (hours missing from the series had no events)',
        querystring: z.object({
          hours: z.coerce.number().int().min(1).max(168).default(24),
          days: z.coerce.number().int().min(1).max(90).default(7),
        }),
        response: {
          200: z.object({
            eventsPerHour: z.array(z.object({ hour: timestamp, count })),
            emailsPerDay: z.array(z.object({ day: timestamp, sent: count, delivered: count, opened: count, clicked: count, bounced: count })),
          }),
          ...bearerErrors,
        },
      },
    },
    async (request) => getActivitySeries(deps.db, { now: new Date(), hours: request.query.hours, days: request.query.days }),
  );

  app.get(
    '/v1/admin/journeys/:id/funnel',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['journeys'],
        summary: 'How many enrollments reached each logged step of a journey, in the order first reached',
        params: z.object({ id: z.string().min(1).max(200) }),
        response: {
          200: z.object({ steps: z.array(z.object({ nodeId: z.string(), action: z.string(), enrollments: count })) }),
          404: errorBody,
          ...bearerErrors,
        },
      },
    },
    async (request) => ({ steps: await getJourneyFunnel(deps.db, deps.journeys, request.params.id) }),
  );

  app.get(
    '/v1/admin/studio-links',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['studio'],
        summary: 'Where the studio links out: the Temporal Web UI (TEMPORAL_UI_URL) and namespace of journey runs',
        response: { 200: z.object({ temporalUiUrl: z.string(), temporalNamespace: z.string() }), ...bearerErrors },
      },
    },
    async () => ({ temporalUiUrl: deps.config.temporal.uiUrl, temporalNamespace: deps.config.temporal.namespace }),
  );
};
