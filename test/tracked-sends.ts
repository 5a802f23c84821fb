import { randomUUID } from 'node:crypto';
import type { Db } from '@waymark/core/db/database';

export interface TrackedSend {
  sendId: string;
  linkId: string;
  userId: string | null;
  toEmail: string;
}

/**
 * Sent emails (as the send path leaves them: `sent`, accepted at `sentAt`, default now) with one
 * tracked link each to `url`: what the tracking routes and the sweep of missing events read.
 */
export async function seedTrackedSends(
  db: Db,
  recipients: readonly { toEmail: string; userId?: string | null; sentAt?: Date }[],
  url = 'https://app.example.com/',
): Promise<TrackedSend[]> {
  const sends = await db
    .insertInto('emailSends')
    .values(
      recipients.map((recipient) => ({
        templateKey: 'welcome',
        toEmail: recipient.toEmail,
        fromEmail: 'tests@waymark.local',
        userId: recipient.userId ?? null,
        status: 'sent' as const,
        sentAt: recipient.sentAt ?? new Date(),
        idempotencyKey: `tracked-${randomUUID()}`,
      })),
    )
    .returning(['id', 'userId', 'toEmail'])
    .execute();
  const links = await db
    .insertInto('trackedLinks')
    .values(sends.map((send) => ({ emailSendId: send.id, originalUrl: url })))
    .returning(['id', 'emailSendId'])
    .execute();
  const linkOf = new Map(links.map((link) => [link.emailSendId, link.id]));
  return sends.map((send) => ({ sendId: send.id, linkId: linkOf.get(send.id)!, userId: send.userId, toEmail: send.toEmail }));
}
