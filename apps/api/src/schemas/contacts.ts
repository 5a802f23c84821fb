import { z } from 'zod';
import type { JsonObject } from '@waymark/core/db/schema';
import { canonicalLocale } from '@waymark/email/message-catalog';
import { emailAddress, nullableTimestamp, timestamp } from './common';

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

/** `{id}`: the contact UUID or its externalId. */
export const contactIdParams = z.object({ id: z.string().min(1).max(512) });
/**
 * OpenAPI note on every contact-properties field: the properties Waymark itself reads
 * (docs/journeys.md, "Timing and etiquette"; docs/email.md, "Languages").
 */
export const TIME_ZONE_NOTE =
  'The `timezone` property, when given, must be an IANA time zone name such as Europe/Paris (else 400 naming the field); it sets the recipient time zone of quiet hours and sleepUntilLocal. ' +
  'The `locale` property, when given, must be a BCP 47 language tag such as fr or fr-CA (else 400 naming the field); it picks the language of the contact\'s emails and preference pages, fr-CA → fr → the template\'s default (docs/email.md, "Languages").';
export const propertiesBody = z
  .record(z.string(), z.unknown())
  .describe(TIME_ZONE_NOTE)
  .transform((value) => value as JsonObject);
// no trim piped in front: the OpenAPI document states exactly the format that is checked
export const emailField = emailAddress;

/**
 * A BCP 47 language tag (docs/email.md, "Languages"): 400 naming the field otherwise. The pattern
 * (language, optional script, optional region: fr, fr-CA, zh-Hant-TW, es-419) is stated in the
 * OpenAPI document, so what it admits is what the api accepts; variants and extensions are not
 * taken here (a contact's `locale` property may carry them).
 */
export const localeTag = z
  .string()
  .max(100)
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?$/, { message: 'must be a BCP 47 language tag such as fr or fr-CA' })
  .refine((tag) => canonicalLocale(tag) !== undefined, { message: 'must be a BCP 47 language tag such as fr or fr-CA' });
