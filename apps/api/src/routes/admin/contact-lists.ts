import { z } from 'zod';
import { listContactLists, removeContactList, setContactList } from '@waymark/core/lists/contact-lists';
import { listMailingLists } from '@waymark/core/lists/mailing-lists';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody, timestamp } from '../../schemas/common';
import { contactIdParams } from '../../schemas/contacts';
import { listKey, mailingListSchema } from '../../schemas/lists';

const membershipSchema = z
  .object({ key: z.string(), name: z.string(), description: z.string().nullable(), subscribed: z.boolean(), updatedAt: timestamp })
  .meta({ id: 'ContactListMembership' });
const tags = ['contacts'];

/**
 * List memberships on the admin plane, for people (sessions never carry the data plane's `ingest`
 * scope): read with `read`, change with `journey-admin`, each change audited on the contact.
 */
export const contactListRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/lists',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'Every mailing list with its subscriber count (the same lists as GET /v1/lists)',
        response: { 200: z.object({ lists: z.array(mailingListSchema) }), ...bearerErrors },
      },
    },
    async () => ({ lists: await listMailingLists(deps.db) }),
  );

  app.get(
    '/v1/admin/contacts/:id/lists',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: "A contact's list memberships by list key (subscribed: false is an opt-out the list remembers)",
        params: contactIdParams,
        response: { 200: z.object({ contactId: z.uuid(), lists: z.array(membershipSchema) }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => listContactLists(deps.db, request.params.id),
  );

  app.put(
    '/v1/admin/contacts/:id/lists/:listKey',
    {
      config: { scope: 'journey-admin', audit: { resource: 'contact', action: 'update' } },
      schema: {
        tags,
        summary: "Set a contact's membership of one list (a new key creates the list, as the lists field of POST /v1/events does)",
        params: contactIdParams.extend({ listKey }),
        body: z.strictObject({ subscribed: z.boolean() }),
        response: { 200: z.object({ contactId: z.uuid(), membership: membershipSchema }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const result = await setContactList(deps.db, request.params.id, request.params.listKey, request.body.subscribed);
      request.auditRecord = { resourceId: result.contactId, detail: { list: request.params.listKey, subscribed: request.body.subscribed } };
      return result;
    },
  );

  app.delete(
    '/v1/admin/contacts/:id/lists/:listKey',
    {
      config: { scope: 'journey-admin', audit: { resource: 'contact', action: 'update' } },
      schema: {
        tags,
        summary: "Remove a contact's membership row of one list (404 when it has none)",
        description: 'Unlike `subscribed: false`, nothing is remembered: a later `lists` field on an event may add the contact again.',
        // any stored key, including ones the data plane's looser `lists` field created
        params: contactIdParams.extend({ listKey: z.string().min(1).max(200) }),
        response: { 200: z.object({ removed: z.literal(true) }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const { contactId } = await removeContactList(deps.db, request.params.id, request.params.listKey);
      request.auditRecord = { resourceId: contactId, detail: { list: request.params.listKey, removed: true } };
      return { removed: true as const };
    },
  );
};
