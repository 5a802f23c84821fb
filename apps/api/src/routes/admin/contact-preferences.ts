import { z } from 'zod';
import { getContactPreferences, updateContactPreferences } from '@waymark/core/preferences/contact-preferences';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { bearerErrors, errorBody } from '../../schemas/common';
import { preferencesSchema } from '../../schemas/contacts';

const params = z.object({ contactId: z.string().min(1).max(512) });
const tags = ['contacts'];

/** GET/PUT /v1/admin/contacts/{contactId}/preferences ({contactId}: UUID or externalId). */
export const contactPreferenceRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/contacts/:contactId/preferences',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: "A contact's email preferences",
        params,
        description:
          '404 `Contact not found` for an unknown contact, and 404 `Preferences not found` for a contact with no stored preferences yet ' +
          '(its `GET /v1/admin/contacts/{id}` shows `preferences: null` then). Such a contact gets the defaults at every send: ' +
          'subscribed to every category, not unsubscribed from all, not suppressed. Clients show those defaults on this 404. ' +
          "An email-only contact's preferences are its address's row with no user id and the row keyed by its lower-cased address (the user id of its events, " +
          "so of its sends' unsubscribes and bounces); when both exist they are shown as the send gate reads them: unsubscribed or suppressed if either row says so, a category off if either turned it off.",
        response: { 200: z.object({ preferences: preferencesSchema }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => ({ preferences: await getContactPreferences(deps.db, request.params.contactId) }),
  );

  app.put(
    '/v1/admin/contacts/:contactId/preferences',
    {
      config: { scope: 'journey-admin', audit: { resource: 'contact', action: 'update' } },
      schema: {
        tags,
        summary: "Upsert a contact's email preferences (categories are merged)",
        description:
          'Preferences are kept per address: a contact without an email answers 400 `Contact has no email`. ' +
          "Sets every row the `GET` shows alike; a contact with none gets the row its sends write to (an email-only contact's: keyed by its lower-cased address). " +
          '`categories` may name only the declared categories (`GET /v1/admin/categories`); another key answers 400 naming it, and so does turning off a `required` one (emails the person asked for).',
        params,
        body: z.strictObject({
          unsubscribedAll: z.boolean().optional(),
          suppressed: z.boolean().optional(),
          categories: z.record(z.string().min(1).max(100), z.boolean()).optional(),
        }),
        response: { 200: preferencesSchema, 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const preferences = await updateContactPreferences(deps.db, deps.categories, request.params.contactId, request.body);
      request.auditRecord = { resourceId: request.params.contactId, detail: { preferences: request.body } };
      return preferences;
    },
  );
};
