import { z } from 'zod';
import { getContactTimeline, timelineTypes } from '@waymark/core/contacts/contact-timeline';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody, listEnvelope, page, paginationQuery, timestamp } from '../../schemas/common';
import { contactIdParams } from '../../schemas/contacts';

const timelineEntry = z.object({ type: z.enum(timelineTypes), timestamp, data: z.record(z.string(), z.unknown()) }).meta({ id: 'TimelineEntry' });

/** Events, journey states and emails of one contact, newest first, paginated in SQL. */
export const contactTimelineRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/contacts/:id/timeline',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['contacts'],
        summary: 'Contact timeline: events (occurredAt), journey states (createdAt) and emails (createdAt), newest first',
        description:
          'An email entry\'s data carries `locale`: the language it was rendered in (docs/email.md, "Languages"; null for sends from before languages).',
        params: contactIdParams,
        querystring: paginationQuery.extend({ type: z.enum(timelineTypes).optional() }),
        response: { 200: listEnvelope('timeline', timelineEntry), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      return page(request.query, await getContactTimeline(deps.db, request.params.id, request.query));
    },
  );
};
