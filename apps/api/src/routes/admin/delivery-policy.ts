import { z } from 'zod';
import { deliveryPolicyView } from '@waymark/core/delivery/policy-view';
import { getProgramHoldoutOutcomes } from '@waymark/core/journeys/program-holdout-outcomes';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { bearerErrors, dateRangeQuery, errorBody } from '../../schemas/common';
import { outcomeArms, outcomeLift } from '../../schemas/outcomes';

const localTime = z.string().describe("24-hour local time of the recipient, 'HH:MM'");

const deliveryPolicy = z
  .object({
    source: z.string().describe('the file of the repository that declares the policy: change it there (code review, deploy), not here'),
    caps: z
      .array(
        z.object({
          category: z.string().describe("a preference category, or '*' for every category not exempt"),
          max: z.number().int().describe('sends of the category one person may get within `per`'),
          per: z.string().describe("the rolling window: a whole number and m, h, d or w ('24h', '7d')"),
          onCap: z.enum(['skip', 'delay']).describe('skip: the send is dropped (reason `frequency_cap`); delay: it waits until the window has room'),
          description: z.string().describe("the cap in words, as the run log and explain name it: '2 per 24h (journey)'"),
          everyCategory: z.boolean().describe("the cap counts and caps every category not exempt ('*')"),
        }),
      )
      .describe('frequency caps, per person (address) across every journey and broadcast, counted from the sends of the window'),
    exempt: z.array(z.string()).describe('categories no cap applies to; their sends are not counted either'),
    quietHours: z
      .object({ from: localTime, to: localTime })
      .nullable()
      .describe('the quiet hours of every journey that sets none of its own, on the recipient’s clock (null: none)'),
    holdout: z
      .object({
        percent: z.number().describe('the share of people held out (0–50), by a hash of their user id'),
        categories: z.array(z.string()).describe('the categories they get no email of, from any journey or broadcast (never a required one)'),
      })
      .nullable()
      .describe('the program holdout, to measure lifecycle email as a whole (docs/journeys.md, "Goals, holdouts and lift"; null: none)'),
  })
  .meta({ id: 'DeliveryPolicy' });

const programHoldoutOutcomes = z
  .object({
    percent: z.number().describe('the share of people the program holds out (0–50)'),
    categories: z.array(z.string()).describe('the categories they get no email of'),
    journeys: z
      .array(
        z.object({
          journeyId: z.string(),
          goal: z.object({ event: z.string(), within: z.string() }),
          arms: outcomeArms.describe(
            '`holdout`: people the program held out of the journey’s category (whatever the journey’s own arm); `treatment`: people in neither the program’s nor the journey’s holdout. A person in the journey’s holdout alone is in neither. Never null here',
          ),
          lift: outcomeLift.nullable().describe('null until both arms have someone in them'),
        }),
      )
      .describe('each journey with a goal whose category the program holds out, in the order of journeys/index.ts'),
  })
  .meta({ id: 'ProgramHoldoutOutcomes' });

/** This installation's delivery policy (journeys/delivery-policy.ts; docs/journeys.md#timing-and-etiquette), read-only. */
export const deliveryPolicyRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/delivery-policy',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['journeys'],
        summary: 'The delivery policy: frequency caps, exempt categories and default quiet hours',
        description:
          'Declared in code (`source`), checked at start-up, and applied to journey and broadcast sends alike. Test sends and exempt categories are never capped. Read-only: the policy changes with a deploy.',
        response: { 200: z.object({ policy: deliveryPolicy }), ...bearerErrors },
      },
    },
    async () => ({ policy: deliveryPolicyView(deps.email.delivery.policy) }),
  );

  app.get(
    '/v1/admin/delivery-policy/holdout/outcomes',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['journeys'],
        summary: 'The program holdout measured: per journey with a goal, conversions of the held-out against the emailed, with the lift',
        description:
          'Lifecycle email as a whole (docs/journeys.md, "The program holdout: lifecycle email as a whole"): for each journey with a goal whose category the program holds out, people held out by the program against people who got its emails, with the same always-valid 95 % interval as a journey’s outcomes. People are counted by the UTC day they entered (`from`/`to`), from their arm recorded at entry; read from counters, so the cost does not grow with enrollments. 404 when the policy has no program holdout.',
        querystring: z.object(dateRangeQuery),
        response: { 200: programHoldoutOutcomes, 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => getProgramHoldoutOutcomes(deps.db, deps.journeys, deps.email.delivery.policy, request.query),
  );
};
