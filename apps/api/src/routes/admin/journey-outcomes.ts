import { z } from 'zod';
import { getJourneyOutcomes } from '@waymark/core/journeys/journey-outcomes';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { bearerErrors, dateRangeQuery, errorBody } from '../../schemas/common';
import { outcomeArms, outcomeDay, outcomeLift } from '../../schemas/outcomes';

const count = z.number().int().nonnegative();

const journeyOutcomes = z
  .object({
    journeyId: z.string(),
    goal: z.object({ event: z.string(), within: z.string() }).nullable().describe('null: the journey has a holdout but no goal'),
    arms: outcomeArms,
    lift: outcomeLift.nullable().describe('null until both arms have someone in them, or without a goal or a holdout'),
    byStep: z
      .array(
        z.object({
          step: z.string().describe('the node id'),
          reached: count,
          sent: count,
          humanOpened: count.describe('emails first opened by a person (not a machine)'),
          humanClicked: count.describe('emails first clicked by a person (not a machine)'),
          converted: count.describe('people who converted after reaching the step'),
        }),
      )
      .describe('the treatment arm per node, most reached first'),
    daily: z
      .array(outcomeDay)
      .describe(
        'per UTC day of entry (oldest first, days nobody entered left out): people who entered that day per arm and, of them, those who converted; the studio draws the cumulative conversion rate of each arm from it',
      ),
  })
  .meta({ id: 'JourneyOutcomes' });

/** Admin plane: a journey's goal, arms and lift (docs/journeys.md, "Goals, holdouts and lift"). */
export const journeyOutcomeRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/journeys/:id/outcomes',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['journeys'],
        summary: "A journey's conversions per arm (treatment, holdout) with the lift and its always-valid 95 % interval",
        description:
          'People are counted by the UTC day they entered, conversions included, so `from`/`to` select the same people in every column. Read from counters kept as people enter, get emails and convert: the cost does not grow with the number of enrollments. 409 for a journey with neither a goal nor a holdout.',
        params: z.object({ id: z.string().min(1).max(100) }),
        querystring: z.object({
          ...dateRangeQuery,
          version: z.string().max(100).optional().describe('only runs started on this journey version'),
        }),
        response: { 200: journeyOutcomes, 404: errorBody, 409: errorBody, ...bearerErrors },
      },
    },
    async (request) => getJourneyOutcomes(deps.db, deps.journeys, request.params.id, request.query),
  );
};
