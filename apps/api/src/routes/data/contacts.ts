import { z } from 'zod';
import { getContact, toContact } from '@waymark/core/contacts/contact';
import { eraseContact } from '@waymark/core/contact-removal/remove-contact';
import { deleteRuns } from '@waymark/core/journeys/exit-states';
import { CONTACT_KEY_REQUIRED, upsertContact } from '@waymark/core/contacts/upsert-contact';
import { setMemberships } from '@waymark/core/lists/set-memberships';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody, requireAnyOf, text } from '../../schemas/common';
import { contactIdParams, contactSchema, emailField, propertiesBody } from '../../schemas/contacts';

const tags = ['data-plane'];

/**
 * Data plane: contacts (scope ingest or full-admin). The upsert is the ingest pipeline's own
 * contact upsert (core/contacts/upsert-contact.ts), so a contact written here and one created by
 * an event are the same record.
 */
export const dataContactRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/v1/contacts',
    {
      config: { scope: 'ingest' },
      schema: {
        tags,
        summary: 'Create or update a contact by userId and/or email (idempotent upsert)',
        description:
          'Resolves the contact by userId (its externalId) or, with email alone, by address; creates it the first time. ' +
          'properties are merged (shallow) onto the stored properties; lists sets list membership (true = subscribed), as the lists field of POST /v1/events.',
        body: z
          .object({
            userId: text(512).optional(),
            email: emailField.optional(),
            properties: propertiesBody.optional(),
            lists: z.record(z.string().min(1).max(200), z.boolean()).optional(),
          })
          .refine((body) => body.userId !== undefined || body.email !== undefined, { message: CONTACT_KEY_REQUIRED, path: ['userId'] })
          .meta(requireAnyOf('userId', 'email')),
        response: { 200: z.object({ contact: contactSchema }), ...bearerErrors },
      },
    },
    async (request) => {
      const { userId, email, properties, lists } = request.body;
      const upserted = await upsertContact(deps.db, { userId, email, properties });
      if (lists !== undefined) await setMemberships(deps.db, upserted.id, lists);
      return { contact: toContact(await getContact(deps.db, upserted.id)) };
    },
  );

  app.get(
    '/v1/contacts/:id',
    {
      config: { scope: 'ingest' },
      schema: {
        tags,
        summary: 'Read one contact by UUID or externalId',
        params: contactIdParams,
        response: { 200: z.object({ contact: contactSchema }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => ({ contact: toContact(await getContact(deps.db, request.params.id)) }),
  );

  app.delete(
    '/v1/contacts/:id',
    {
      config: { scope: 'ingest', audit: { resource: 'contact', action: 'delete' } },
      schema: {
        tags,
        summary:
          'Erase a contact: the contact, its email preferences, list memberships, event records and the dead letters a retry would act on (audited); its live journey runs end (exited, reason contact_erased), its runs are deleted from Temporal, its journey records and the clicks and opens of its emails forget it, its email send records stay as delivery history without the data and subject rendered for it (an unsent one is cancelled), and the outbound webhook events about it that were delivered go (docs/operations.md, "Contacts")',
        params: contactIdParams,
        response: { 200: z.object({ deleted: z.literal(true), eventsDeleted: z.number() }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const { contact, userIds, eventsDeleted, runsToCancel, effectsDropped, runsToDelete, parkedDeleted, sendsErased, webhookEventsDeleted } =
        await eraseContact(deps.db, request.params.id);
      // every run of the person leaves Temporal, history and all; a live one is stopped by its deletion
      const runsDeleted = await deleteRuns({ logger: request.log, orchestrator: deps.temporal.orchestrator }, runsToDelete);
      // and the sources' cache of their properties, from which an event without an email would bring the address back
      await deps.personCache.forget(userIds).catch((error: unknown) => {
        request.log.warn({ err: error }, "erasure: could not drop the person's cached source properties (Redis); they expire within 30 days");
      });
      // what was done, not to whom: an erasure keeps neither the person's address nor their id
      request.auditRecord = {
        resourceId: contact.id,
        detail: {
          erasure: true,
          eventsDeleted,
          runsExited: runsToCancel.length,
          effectsDropped,
          runsDeleted,
          parkedDeleted,
          sendsErased,
          webhookEventsDeleted,
        },
      };
      return { deleted: true as const, eventsDeleted };
    },
  );
};
