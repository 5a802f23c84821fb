import { z } from 'zod';
import { explainJourney } from '@waymark/core/journeys/explain';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody, timestamp } from '../../schemas/common';
import { contactIdParams } from '../../schemas/contacts';

const step = z.object({
  at: timestamp,
  node: z.string(),
  action: z.string(),
  outcome: z.string(),
  templateKey: z.string().optional(),
  locale: z
    .string()
    .optional()
    .describe("The language the step's email was rendered in: the template's locale for the contact's `locale` property (docs/email.md, \"Languages\")."),
});

const explanation = z
  .object({
    contact: z.object({ id: z.uuid(), externalId: z.string().nullable(), email: z.string().nullable() }),
    journey: z.object({ id: z.string(), name: z.string(), triggerEvent: z.string(), enabled: z.boolean() }),
    unavailable: z.enum(['journey disabled', 'journey not in ENABLED_JOURNEYS']).optional(),
    triggers: z.array(z.object({ eventId: z.uuid(), at: timestamp, outcome: z.string(), stateId: z.uuid().optional() })),
    enrollments: z.array(
      z.object({
        stateId: z.uuid(),
        status: z.string(),
        enteredAt: timestamp,
        triggerEventId: z.string().nullable(),
        steps: z.array(step),
        now: z.string().optional().describe('for a live run: its pending timer or wait, from Temporal'),
        arm: z
          .string()
          .optional()
          .describe('for a journey with a holdout: the arm and why, e.g. "held out of first-project (bucket 134 of 1000 is under 200)"'),
        converted: z.string().optional().describe('when the goal was met, e.g. "converted on day 3 through subscription.started"'),
      }),
    ),
    notEnrolled: z.string().optional().describe('when there is no enrollment: the reason'),
    template: z.object({ key: z.string(), outcome: z.string() }).optional(),
  })
  .meta({ id: 'JourneyExplanation' });

/** Why a person did or did not get a journey's emails (docs/journeys.md#explain). */
export const contactExplainRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/contacts/:id/explain',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['contacts'],
        summary: 'Why this contact did or did not get a journey’s emails: triggers, enrollments and each step with its outcome',
        params: contactIdParams,
        querystring: z.object({ journeyId: z.string().min(1), templateKey: z.string().min(1).optional() }),
        response: { 200: z.object({ explanation }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => ({
      explanation: await explainJourney(
        { db: deps.db, journeys: deps.journeys, orchestrator: deps.temporal.orchestrator, categories: deps.categories },
        {
          contactId: request.params.id,
          journeyId: request.query.journeyId,
          ...(request.query.templateKey === undefined ? {} : { templateKey: request.query.templateKey }),
        },
      ),
    }),
  );
};
