import { z } from 'zod';

/**
 * What a broadcast is made of (docs/broadcasts.md). The api's body schemas and core's checks are
 * these same schemas, so the OpenAPI document and the rules cannot drift.
 */

export const broadcastStatuses = ['draft', 'scheduled', 'sending', 'testing', 'paused', 'sent', 'cancelled', 'failed'] as const;

/** Why a recipient got no email; the stats' `skipped` keys are the camelCase of these. */
export const broadcastSkipReasons = ['unsubscribed', 'suppressed', 'no_email', 'missing_data', 'frequency_cap', 'holdout'] as const;
export type BroadcastSkipReason = (typeof broadcastSkipReasons)[number];

/** A recipient whose send's outcome was unknown and which the delivery policy dropped (at most once): `skipped` with this reason, counted as `unknownDropped`. */
export const UNKNOWN_DROPPED = 'unknown_dropped';

export const broadcastRecipientStatuses = ['pending', 'sent', 'failed', 'skipped', 'cancelled'] as const;

const jsonData = z.record(z.string(), z.unknown());

export const broadcastAudienceSchema = z
  .union([
    z.strictObject({ segmentId: z.uuid().describe('a saved segment (docs/segments.md)') }),
    z.strictObject({ listKey: z.string().min(1).max(200).describe('the subscribed members of a list') }),
    z.strictObject({ all: z.literal(true).describe('every contact') }),
  ])
  .describe('who gets it, resolved once when sending starts (later joiners are not added)');
export type BroadcastAudience = z.infer<typeof broadcastAudienceSchema>;

export const localTimeSchema = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be a 24-hour time 'HH:MM'")
  .describe("send at this time in each recipient's `timezone` property (DEFAULT_TIMEZONE when absent), at its first such moment after scheduledAt (or now)");

const subject = z.string().trim().min(1).max(998);
const key = z.string().trim().min(1).max(200);

export const broadcastVariantSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, dashes or underscores')
    .describe('unique within the broadcast, e.g. `a`'),
  subject: subject.optional().describe("overrides the broadcast's subject"),
  templateKey: key.optional().describe("overrides the broadcast's template"),
  data: jsonData.optional().describe("merged over the broadcast's data"),
});
export type BroadcastVariant = z.infer<typeof broadcastVariantSchema>;

export const abTestMetrics = ['human_clicks', 'human_opens'] as const;

export const abTestSchema = z.strictObject({
  testFraction: z.number().min(0.02).max(0.5).describe('share of the audience that gets the test, split evenly over the variants'),
  metric: z.enum(abTestMetrics).describe('the rate the winner has best (people only, not machine hits); ties go to the first variant'),
  waitMinutes: z.number().int().min(5).max(10080).describe('how long after the test is sent the winner is picked; the rest then gets the winner'),
});
export type AbTest = z.infer<typeof abTestSchema>;

const variants = z.array(broadcastVariantSchema).min(2).max(5);
const scheduledAt = z.iso.datetime({ offset: true }).describe('send at (or, with localTime, from) this instant; absent: as soon as `send` is called');

/** Variants have distinct ids; an A/B test needs variants. Shared by create and patch. */
function checkVariants(value: { variants?: BroadcastVariant[] | null | undefined; abTest?: AbTest | null | undefined }, ctx: z.RefinementCtx): void {
  const ids = (value.variants ?? []).map((variant) => variant.id);
  const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
  if (duplicate !== undefined) ctx.addIssue({ code: 'custom', path: ['variants'], message: `variant id '${duplicate}' is used twice` });
  if (value.abTest != null && (value.variants == null || value.variants.length < 2))
    ctx.addIssue({ code: 'custom', path: ['abTest'], message: 'an A/B test needs 2 to 5 variants' });
}

export const broadcastInputSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    templateKey: key.describe('the email template (GET /v1/admin/templates)'),
    category: key.describe(
      'the preference category (GET /v1/admin/categories); people unsubscribed from it are skipped. Not a required one (400): those are emails a person asked for',
    ),
    audience: broadcastAudienceSchema,
    data: jsonData
      .optional()
      .describe("template props; a prop the template declares that data lacks comes from the recipient contact's property of the same name"),
    subject: subject.optional().describe("overrides the template's subject"),
    scheduledAt: scheduledAt.optional(),
    localTime: localTimeSchema.optional(),
    variants: variants.optional().describe('2–5 variants; without abTest they split the whole audience evenly'),
    abTest: abTestSchema.optional(),
  })
  .superRefine(checkVariants);
export type BroadcastInput = z.infer<typeof broadcastInputSchema>;

/** PATCH (draft only): any field; null removes an optional one. */
export const broadcastPatchSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    templateKey: key.optional(),
    category: key.optional(),
    audience: broadcastAudienceSchema.optional(),
    data: jsonData.nullable().optional(),
    subject: subject.nullable().optional(),
    scheduledAt: scheduledAt.nullable().optional(),
    localTime: localTimeSchema.nullable().optional(),
    variants: variants.nullable().optional(),
    abTest: abTestSchema.nullable().optional(),
  })
  .superRefine(checkVariants);
export type BroadcastPatch = z.infer<typeof broadcastPatchSchema>;

export const broadcastTestSchema = z.strictObject({
  emails: z.array(z.email()).min(1).max(5).describe('up to 5 addresses; each gets a copy marked [Test], not counted in the stats'),
});
