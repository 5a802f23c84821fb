import { z } from 'zod';

/**
 * The SES message carried in an SNS Notification. Both SES feedback notifications
 * (`notificationType`) and configuration-set event publishing (`eventType`) are accepted.
 */
const recipients = z.array(z.object({ emailAddress: z.string() }).loose()).default([]);

const sesPayload = z
  .object({
    notificationType: z.string().optional(),
    eventType: z.string().optional(),
    mail: z
      .object({
        messageId: z.string().min(1),
        // when SES accepted the message (every event of it carries the same)
        timestamp: z.string().optional(),
        destination: z.array(z.string()).optional(),
        // event publishing only: the message tags, each a list of values
        tags: z.record(z.string(), z.array(z.string())).optional(),
      })
      .loose(),
    bounce: z
      .object({ bounceType: z.string(), bounceSubType: z.string().optional(), bouncedRecipients: recipients, timestamp: z.string().optional() })
      .loose()
      .optional(),
    complaint: z.object({ complainedRecipients: recipients, timestamp: z.string().optional() }).loose().optional(),
    delivery: z.object({ timestamp: z.string().optional() }).loose().optional(),
    open: z.object({ timestamp: z.string().optional(), ipAddress: z.string().optional(), userAgent: z.string().optional() }).loose().optional(),
    click: z
      .object({ timestamp: z.string().optional(), link: z.string().optional(), ipAddress: z.string().optional(), userAgent: z.string().optional() })
      .loose()
      .optional(),
    reject: z.object({ reason: z.string().optional() }).loose().optional(),
    failure: z.object({ errorMessage: z.string().optional() }).loose().optional(),
    deliveryDelay: z.object({ delayType: z.string().optional() }).loose().optional(),
  })
  .loose();

/** The message tag every send carries (packages/core/src/emails/send-provider.ts): the id of its send row. */
export const EMAIL_SEND_ID_TAG = 'waymark_email_send_id';

export type SesEvent = (
  | { kind: 'sent'; messageId: string; at: Date }
  | { kind: 'delivered'; messageId: string; at: Date }
  | { kind: 'bounced'; messageId: string; at: Date; permanent: boolean; recipients: string[]; bounceType: string }
  | { kind: 'complained'; messageId: string; at: Date; recipients: string[] }
  | { kind: 'opened'; messageId: string; at: Date; ipAddress: string | null; userAgent: string | null }
  | { kind: 'clicked'; messageId: string; at: Date; ipAddress: string | null; userAgent: string | null }
  | { kind: 'rejected'; messageId: string; at: Date; reason: string }
  | { kind: 'ignored'; messageId: string; type: string }
) & {
  /** the send id tag (event publishing), which finds a send whose provider message id is not recorded yet */
  emailSendId?: string | undefined;
  /** SES's own type: `Send`, `Bounce`, … (event publishing) or the notification type */
  sesType: string;
  /** when SES accepted the message (`mail.timestamp`), when the payload says */
  acceptedAt?: Date | undefined;
};

/** A payload's timestamp, when it is one */
function dateOf(value: string | undefined): Date | undefined {
  const date = value === undefined ? undefined : new Date(value);
  return date === undefined || Number.isNaN(date.getTime()) ? undefined : date;
}

function when(value: string | undefined): Date {
  return dateOf(value) ?? new Date();
}

/** Maps an SES notification to one domain event; undefined when the text is not an SES message. */
export function parseSesNotification(text: string): SesEvent | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = sesPayload.safeParse(json);
  if (!parsed.success) return undefined;
  const ses = parsed.data;
  const sesType = ses.eventType ?? ses.notificationType ?? '';
  const emailSendId = ses.mail.tags?.[EMAIL_SEND_ID_TAG]?.[0];
  const event = sesEventOf(ses, sesType.toLowerCase());
  const acceptedAt = dateOf(ses.mail.timestamp);
  return { ...event, sesType, ...(emailSendId === undefined ? {} : { emailSendId }), ...(acceptedAt === undefined ? {} : { acceptedAt }) };
}

type SesEventKind = SesEvent extends infer E ? (E extends SesEvent ? Omit<E, 'sesType' | 'emailSendId'> : never) : never;

function sesEventOf(ses: z.infer<typeof sesPayload>, type: string): SesEventKind {
  const messageId = ses.mail.messageId;
  switch (type) {
    // event publishing: SES accepted the message (the first event of every send)
    case 'send':
      return { kind: 'sent', messageId, at: when(ses.mail.timestamp) };
    case 'delivery':
      return { kind: 'delivered', messageId, at: when(ses.delivery?.timestamp) };
    case 'bounce': {
      const bounceType = ses.bounce?.bounceType ?? 'Undetermined';
      return {
        kind: 'bounced',
        messageId,
        at: when(ses.bounce?.timestamp),
        // SES: Permanent = hard bounce; Transient and Undetermined are soft and do not count
        permanent: bounceType === 'Permanent',
        recipients: (ses.bounce?.bouncedRecipients ?? []).map((recipient) => recipient.emailAddress),
        bounceType,
      };
    }
    case 'complaint':
      return {
        kind: 'complained',
        messageId,
        at: when(ses.complaint?.timestamp),
        recipients: (ses.complaint?.complainedRecipients ?? []).map((r) => r.emailAddress),
      };
    case 'open':
      return { kind: 'opened', messageId, at: when(ses.open?.timestamp), ipAddress: ses.open?.ipAddress ?? null, userAgent: ses.open?.userAgent ?? null };
    case 'click':
      return { kind: 'clicked', messageId, at: when(ses.click?.timestamp), ipAddress: ses.click?.ipAddress ?? null, userAgent: ses.click?.userAgent ?? null };
    case 'reject':
      return { kind: 'rejected', messageId, at: new Date(), reason: ses.reject?.reason ?? 'rejected by the provider' };
    case 'rendering failure':
      return { kind: 'rejected', messageId, at: new Date(), reason: ses.failure?.errorMessage ?? 'rendering failure' };
    default:
      // deliverydelay, subscription: informational, no state change
      return { kind: 'ignored', messageId, type: type || 'unknown' };
  }
}
