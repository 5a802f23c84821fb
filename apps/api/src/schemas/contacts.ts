import { z } from 'zod';
import type { JsonObject } from '@waymark/core/db/schema';
import { nullableTimestamp, timestamp } from './common';

/** Contact schemas shared by the admin and data planes (routes/admin/contacts.ts, routes/data/contacts.ts). */
export const contactSchema = z
  .object({
    id: z.uuid(),
    externalId: z.string().nullable(),
    email: z.string().nullable(),
    properties: z.record(z.string(), z.unknown()),
    firstSeenAt: timestamp,
    lastSeenAt: timestamp,
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Contact' });

export const preferencesSchema = z
  .object({
    id: z.uuid(),
    userId: z.string().nullable(),
    email: z.string(),
    unsubscribedAll: z.boolean(),
    suppressed: z.boolean(),
    bounceCount: z.number(),
    categories: z.record(z.string(), z.boolean()),
    suppressedAt: nullableTimestamp,
    lastBounceAt: nullableTimestamp,
  })
  .meta({ id: 'EmailPreferences' });

/** `{id}`: the contact UUID or its externalId (SPEC §4). */
export const contactIdParams = z.object({ id: z.string().min(1).max(512) });
export const propertiesBody = z.record(z.string(), z.unknown()).transform((value) => value as JsonObject);
// z.email() itself (not a trim piped into it) so the OpenAPI document states the format zod checks
export const emailField = z.email({ error: 'must be a valid email address' }).max(320);
