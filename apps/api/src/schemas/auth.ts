import { z } from 'zod';
import { memberRoleSchema } from '@waymark/core/organizations/roles';
import { passwordSchema } from '@waymark/core/users/passwords';
import { timestamp } from './common';

/** Auth errors may carry a machine-readable `code` (INVALID_EMAIL_OR_PASSWORD, INVALID_TOKEN, …). */
export const authErrorBody = z.object({ error: z.string(), code: z.string().optional() }).meta({ id: 'AuthError' });

/** An email address: at most 254 characters, of which at most 64 before the @ (RFC 5321). */
export const emailField = z
  .email()
  .max(254)
  .refine((value) => value.lastIndexOf('@') <= 64, 'the part before @ must be at most 64 characters');
export const passwordField = passwordSchema.meta({ description: '8 to 128 characters' });

export const authUser = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    role: z.string().meta({ description: '`admin` (made from the server) or `member` (joined by invitation)' }),
  })
  .meta({ id: 'AuthUser' });

export const authSession = z
  .object({
    id: z.string().meta({ description: 'public id of the session (a SHA-256 digest; the cookie value itself is never returned)' }),
    expiresAt: timestamp,
  })
  .meta({ id: 'AuthSession' });

export const signedIn = z.object({ user: authUser, session: authSession }).meta({ id: 'SignedIn' });

/** The current session as the studio reads it: who, in which organization, allowed to do what. */
export const currentSession = signedIn
  .extend({
    organization: z
      .object({ id: z.uuid(), name: z.string(), slug: z.string(), role: memberRoleSchema })
      .nullable()
      .meta({ description: 'the organization /v1/admin/* calls act in (`X-Waymark-Org`, else the first one); null for a user of none' }),
    abilities: z
      .object({
        manageJourneys: z.boolean().meta({ description: 'the role grants journey-admin: switch journeys, enroll, cancel, edit contacts, send tests' }),
        administer: z.boolean().meta({ description: 'the role grants full-admin: keys, DLQ, replay, webhooks, alerts, members' }),
      })
      .meta({ id: 'Abilities', description: 'what the role in that organization allows; the admin API answers 403 to anything else' }),
  })
  .meta({ id: 'CurrentSession' });

export const okBody = z.object({ ok: z.literal(true) }).meta({ id: 'Ok' });

export const organizationSummary = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    role: memberRoleSchema.meta({ description: "the person's role, the same in every organization" }),
  })
  .meta({ id: 'OrganizationMembership' });

export const organizationRecord = z.object({ id: z.uuid(), name: z.string(), slug: z.string(), createdAt: timestamp }).meta({ id: 'Organization' });

export const member = z
  .object({ userId: z.string(), email: z.string(), name: z.string().nullable(), role: memberRoleSchema, joinedAt: timestamp })
  .meta({ id: 'OrganizationMember' });

export const invitation = z.object({ id: z.uuid(), email: z.string(), role: memberRoleSchema, expiresAt: timestamp }).meta({ id: 'Invitation' });

export const pendingInvitation = z
  .object({
    id: z.uuid(),
    email: z.string(),
    role: memberRoleSchema,
    invitedBy: z.string().nullable().meta({ description: "the inviter's email; null when that account was deleted since" }),
    createdAt: timestamp,
    expiresAt: timestamp,
  })
  .meta({ id: 'PendingInvitation' });

/** Error statuses every session-authenticated auth route can answer. */
export const sessionErrors = { 400: authErrorBody, 401: authErrorBody, 403: authErrorBody, 429: authErrorBody } as const;
