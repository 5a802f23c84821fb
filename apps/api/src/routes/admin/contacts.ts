import { z } from 'zod';
import { getContactDetail } from '@waymark/core/preferences/contact-preferences';
import { createContact, listContacts, updateContact } from '@waymark/core/contacts/contact-admin';
import { deleteContact } from '@waymark/core/contact-removal/remove-contact';
import { cancelRuns } from '@waymark/core/journeys/exit-states';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { contactSchema, preferencesSchema, contactIdParams, propertiesBody, emailField } from '../../schemas/contacts';
import { bearerErrors, errorBody, listEnvelope, page, paginationQuery, text } from '../../schemas/common';

const tags = ['contacts'];

/** Admin plane: contacts (read = R; mutations = J). */
export const contactRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/contacts',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'List contacts (search is case-insensitive on email or externalId; newest lastSeenAt first)',
        querystring: paginationQuery.extend({ search: z.string().trim().max(320).optional() }),
        response: { 200: listEnvelope('contacts', contactSchema), ...bearerErrors },
      },
    },
    async (request) => {
      return page(request.query, await listContacts(deps.db, request.query));
    },
  );

  app.get(
    '/v1/admin/contacts/:id',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'Get a contact and its email preferences (null when none exist)',
        params: contactIdParams,
        response: { 200: z.object({ contact: contactSchema, preferences: preferencesSchema.nullable() }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => getContactDetail(deps.db, request.params.id),
  );

  app.post(
    '/v1/admin/contacts',
    {
      config: { scope: 'journey-admin', audit: { resource: 'contact', action: 'create' } },
      schema: {
        tags,
        summary: 'Create a contact (409 when the externalId exists)',
        body: z.object({ externalId: text(512), email: emailField.optional(), properties: propertiesBody.optional() }),
        response: { 201: z.object({ contact: contactSchema }), 409: errorBody, ...bearerErrors },
      },
    },
    async (request, reply) => {
      const contact = await createContact(deps.db, request.body);
      // audit rows name a contact by its id, never by the person's own identifiers, which an erasure cannot take back from the log
      request.auditRecord = { resourceId: contact.id };
      return reply.status(201).send({ contact });
    },
  );

  app.patch(
    '/v1/admin/contacts/:id',
    {
      config: { scope: 'journey-admin', audit: { resource: 'contact', action: 'update' } },
      schema: {
        tags,
        summary: 'Update a contact: email replaces; properties deep-merge, and a null value removes that key',
        params: contactIdParams,
        body: z.object({ email: emailField.optional(), properties: propertiesBody.optional() }),
        response: { 200: contactSchema, 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const contact = await updateContact(deps.db, request.params.id, request.body);
      request.auditRecord = { resourceId: contact.id, detail: { fields: Object.keys(request.body) } };
      return contact;
    },
  );

  app.delete(
    '/v1/admin/contacts/:id',
    {
      config: { scope: 'journey-admin', audit: { resource: 'contact', action: 'delete' } },
      schema: {
        tags,
        summary: 'Delete a contact and its email preferences; its live journey runs end (exited, reason contact_deleted)',
        params: contactIdParams,
        response: { 200: z.object({ deleted: z.literal(true) }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const { contact, runsToCancel, effectsDropped } = await deleteContact(deps.db, request.params.id);
      await cancelRuns({ logger: request.log, orchestrator: deps.temporal.orchestrator }, runsToCancel);
      request.auditRecord = {
        resourceId: contact.id,
        detail: { runsExited: runsToCancel.length, effectsDropped },
      };
      return { deleted: true as const };
    },
  );
};
