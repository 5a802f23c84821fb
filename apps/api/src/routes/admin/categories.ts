import { z } from 'zod';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { bearerErrors } from '../../schemas/common';

const category = z
  .object({
    key: z.string().describe('what preferences, sends and journeys name'),
    label: z.string().describe('what the preference center shows'),
    description: z.string(),
    required: z
      .boolean()
      .describe(
        'emails the person asked for (password resets, receipts): always sent whatever their opt-outs (only suppression stops them), shown without a toggle, never capped, never a broadcast category',
      ),
  })
  .meta({ id: 'PreferenceCategory' });

/** The preference categories this deployment declares (journeys/categories.ts; docs/email.md#preference-categories). */
export const categoryRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/categories',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['contacts'],
        summary: 'The preference categories, in the order the preference center lists them',
        description:
          'A person can leave each category on its own from the preference center, except a `required` one (emails they asked for: a preference update cannot turn it off). Contact preferences and journeys may name only these keys (another answers 400 naming it); journey emails use `journey` unless the journey names another.',
        response: { 200: z.object({ categories: z.array(category) }), ...bearerErrors },
      },
    },
    async () => ({ categories: deps.categories.all().map((entry) => ({ ...entry, required: entry.required === true })) }),
  );
};
