import { z } from 'zod';
import { describeEventCatalog } from '@waymark/core/journeys/event-catalog';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { bearerErrors } from '../../schemas/common';

const catalogEntry = z
  .object({
    name: z.string(),
    schema: z.record(z.string(), z.unknown()).describe('the properties schema (JSON Schema)'),
    triggers: z.array(z.string()).describe('journeys this event starts'),
    exits: z.array(z.string()).describe('journeys with an exitOn rule for this event'),
  })
  .meta({ id: 'CatalogEvent' });

/** The event catalog (journeys/events.ts; docs/journeys.md#typed-events). */
export const eventCatalogRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/event-catalog',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['events'],
        summary: 'Catalogued events: their properties schemas and the journeys they start or end',
        description:
          'POST /v1/events and webhook sources refuse a catalogued event whose properties do not match its schema (400 naming the failing path); events outside the catalog pass unchecked.',
        response: { 200: z.object({ events: z.array(catalogEntry) }), ...bearerErrors },
      },
    },
    async () => ({ events: describeEventCatalog(deps.journeys) }),
  );
};
