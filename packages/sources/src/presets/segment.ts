import { z } from 'zod';
import { defineSource } from '../define-source';
import { asEmail, asString, compact } from '../payload-fields';
import { hmacHex } from '../schemes/hmac-hex';

const properties = z.record(z.string(), z.unknown());

/** A Segment spec call (https://segment.com/docs/connections/spec/) as the Webhooks destination posts it. */
const segmentCall = z.object({
  type: z.enum(['track', 'identify', 'page', 'screen', 'group', 'alias']),
  messageId: z.string().min(1).optional(),
  userId: z.string().nullable().optional(),
  anonymousId: z.string().nullable().optional(),
  event: z.string().optional(),
  name: z.string().nullable().optional(),
  properties: properties.optional(),
  traits: properties.optional(),
  context: z.object({ traits: properties.optional() }).loose().optional(),
});

/**
 * Segment (docs/sources.md#segment): `track` keeps its event name, `identify` becomes
 * `identify` with the traits as contact properties, `page`/`screen` keep their type; `group`
 * and `alias` are skipped, as is any call without a `userId` or an email trait.
 */
export const segment = defineSource({
  id: 'segment',
  description: 'Segment Webhooks destination, signed with X-Signature (HMAC-SHA1 hex of the body)',
  auth: { type: 'signature', secret: 'SEGMENT_WEBHOOK_SECRET', scheme: hmacHex({ header: 'x-signature', algorithm: 'sha1' }) },
  mountWhenSecretSet: true,
  schema: segmentCall,
  transform(payload) {
    if (payload.type === 'group' || payload.type === 'alias') return undefined;
    const userId = asString(payload.userId);
    const userEmail = asEmail(payload.traits?.email) ?? asEmail(payload.context?.traits?.email);
    if (userId === undefined && userEmail === undefined) return undefined;
    const event = payload.type === 'track' ? asString(payload.event) : payload.type;
    if (event === undefined) return undefined;
    const anonymousId = asString(payload.anonymousId);
    return {
      event,
      userId,
      userEmail,
      anonymousId,
      eventProperties: compact({
        ...(payload.type === 'identify' ? {} : payload.properties),
        name: payload.type === 'page' || payload.type === 'screen' ? asString(payload.name) : undefined,
        segmentMessageId: payload.messageId,
        anonymousId,
      }),
      contactProperties: payload.type === 'identify' ? payload.traits : undefined,
      idempotencyKey: payload.messageId,
    };
  },
});
