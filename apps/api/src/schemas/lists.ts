import { z } from 'zod';
import { timestamp } from './common';

/** Mailing list schemas shared by the data plane (routes/data/lists.ts) and the admin plane (routes/admin/contact-lists.ts). */
export const mailingListSchema = z
  .object({
    id: z.uuid(),
    key: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    subscribers: z.number(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'MailingList' });

/** The key of a list a request may create: what a URL and a log line carry without escaping. */
export const listKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\w.:-]+$/, 'letters, digits, _ . : - only');
