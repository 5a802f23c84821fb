import { z } from 'zod';
import { CONTACT_KEY_REQUIRED, upsertContact } from '@waymark/core/contacts/upsert-contact';
import { createMailingList, listMailingLists } from '@waymark/core/lists/mailing-lists';
import { setMemberships } from '@waymark/core/lists/set-memberships';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody, requireAnyOf, text } from '../../schemas/common';
import { listKey, mailingListSchema } from '../../schemas/lists';
import { emailField } from '../../schemas/contacts';

const tags = ['data-plane'];

/** Data plane: mailing lists (scope ingest or full-admin). */
export const dataListRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/lists',
    {
      config: { scope: 'ingest' },
      schema: {
        tags,
        summary: 'List the mailing lists with their subscriber counts',
        response: { 200: z.object({ lists: z.array(mailingListSchema) }), ...bearerErrors },
      },
    },
    async () => ({ lists: await listMailingLists(deps.db) }),
  );

  app.post(
    '/v1/lists',
    {
      config: { scope: 'ingest' },
      schema: {
        tags,
        summary: 'Create a mailing list (409 when the key exists)',
        body: z.object({ key: listKey, name: text(200), description: z.string().max(2000).optional() }),
        response: { 201: z.object({ list: mailingListSchema }), 409: errorBody, ...bearerErrors },
      },
    },
    async (request, reply) => reply.status(201).send({ list: await createMailingList(deps.db, request.body) }),
  );

  app.post(
    '/v1/lists/memberships',
    {
      config: { scope: 'ingest' },
      schema: {
        tags,
        summary: "Set a contact's list memberships (same effect as the lists field of POST /v1/events)",
        description: 'The contact is resolved (or created) by userId and/or email; a list key seen for the first time creates the list.',
        body: z
          .object({
            userId: text(512).optional(),
            email: emailField.optional(),
            lists: z
              .record(listKey, z.boolean())
              .refine((value) => Object.keys(value).length > 0, 'must name at least one list')
              .meta({ minProperties: 1 }),
          })
          .refine((body) => body.userId !== undefined || body.email !== undefined, { message: CONTACT_KEY_REQUIRED, path: ['userId'] })
          .meta(requireAnyOf('userId', 'email')),
        response: { 200: z.object({ contactId: z.uuid(), lists: z.record(z.string(), z.boolean()) }), ...bearerErrors },
      },
    },
    async (request) => {
      const { userId, email, lists } = request.body;
      const contact = await upsertContact(deps.db, { userId, email });
      await setMemberships(deps.db, contact.id, lists);
      return { contactId: contact.id, lists };
    },
  );
};
