import { sql } from 'kysely';
import { parseSesNotification, type SesEvent } from '@waymark/email/ses-notification';
import type { SnsMessage } from '@waymark/email/sns-message';
import type { Db } from '../../db/database';
import type { EmailSendRow, EmailStatus } from '../../db/schema';
import { recordComplaint, recordHardBounce } from '../../preferences/suppression';
import { keepAddressSuppression } from '../../contacts/address-suppressions';
import { machineReasonOf } from '../../tracking/machine-hits';
import { countReputationEvent, sendGroupOf, type ReputationEvent } from '../../deliverability/reputation-counts';
import { mailboxProviderOf } from '../../delivery/mailbox-provider';

export interface ProcessOutcome {
  /** false for a redelivered SNS message (already processed: nothing changed) */
  processed: boolean;
  kind: SesEvent['kind'] | 'unparsed';
  emailSendId?: string;
}

/** Delivery progress order; a late notification never moves a send backwards. */
const PROGRESS: Record<EmailStatus, number> = {
  queued: 0,
  rendered: 1,
  failed: 1,
  // never handed to the provider: a notification for it cannot exist
  cancelled: 1,
  unknown_dropped: 1,
  sent: 2,
  delivered: 3,
  opened: 4,
  clicked: 5,
  bounced: 6,
  complained: 7,
};

/** Statuses of a send the provider may have accepted without its answer being recorded (docs/email.md, "Exactly once"). */
const UNSETTLED: readonly EmailStatus[] = ['queued', 'rendered', 'failed', 'unknown_dropped'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The send an event is about: by the provider message id, else by its send id tag when the send
 * has no message id yet. An event found by its tag settles the send: SES accepted it (its Send
 * event, or any later one), so it is `sent` with that message id, whether its own attempt is still
 * waiting for SES's answer, stopped during the call (delivery unknown), or was dropped or parked.
 */
async function findSend(db: Db, event: SesEvent): Promise<EmailSendRow | undefined> {
  const byMessage = await db.selectFrom('emailSends').selectAll().where('providerMessageId', '=', event.messageId).forUpdate().executeTakeFirst();
  if (byMessage !== undefined || event.emailSendId === undefined || !UUID.test(event.emailSendId)) return byMessage;
  const tagged = await db.selectFrom('emailSends').selectAll().where('id', '=', event.emailSendId).forUpdate().executeTakeFirst();
  if (tagged === undefined || tagged.providerMessageId !== null || !UNSETTLED.includes(tagged.status)) return undefined;
  const at = 'at' in event ? event.at : new Date();
  return db
    .updateTable('emailSends')
    .set({ status: 'sent', providerMessageId: event.messageId, sentAt: sql`coalesce(sent_at, ${at})`, errorMessage: null, updatedAt: new Date() })
    .where('id', '=', tagged.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Applies one verified SES notification. The SNS MessageId is recorded in the same transaction,
 * so a redelivery (SNS retries until it sees a 2xx) changes nothing twice: in particular a bounce
 * is counted once.
 */
export interface ProcessOptions {
  bounceThreshold: number;
  /** whether a category is required (journeys/categories.ts): its sends count in the breaker's `transactional` group */
  isRequired: (category: string) => boolean;
}

/** The breaker counts an event of a send by the send's group and its recipient's mailbox provider (docs/email.md, "Reputation breaker"). */
async function countForBreaker(db: Db, send: EmailSendRow, event: ReputationEvent, at: Date, options: ProcessOptions): Promise<void> {
  await countReputationEvent(db, { group: sendGroupOf(options.isRequired(send.category)), provider: mailboxProviderOf(send.toEmail) }, event, at);
}

export async function processSesNotification(db: Db, message: SnsMessage, options: ProcessOptions): Promise<ProcessOutcome> {
  const event = parseSesNotification(message.Message);
  return db.transaction().execute(async (trx) => {
    const fresh = await trx
      .insertInto('emailProviderNotifications')
      .values({
        messageId: message.MessageId,
        notificationType: event?.kind ?? 'unparsed',
        eventType: event?.sesType ?? null,
        // only an event of Waymark's own configuration set (it carries the send id tag) tells how
        // far that stream has come (emails/unknown-delivery.ts)
        acceptedAt: event?.emailSendId === undefined ? null : (event.acceptedAt ?? null),
      })
      .onConflict((oc) => oc.column('messageId').doNothing())
      .returning('messageId')
      .executeTakeFirst();
    if (fresh === undefined) return { processed: false, kind: event?.kind ?? 'unparsed' };
    if (event === undefined) return { processed: true, kind: 'unparsed' };

    const send = await findSend(trx, event);
    // kept per send (its category and recipient by a join): what bounces and complaints a send drew
    if (send !== undefined)
      await trx.updateTable('emailProviderNotifications').set({ emailSendId: send.id }).where('messageId', '=', message.MessageId).execute();
    const at = 'at' in event ? event.at : new Date();
    switch (event.kind) {
      case 'sent':
        break;
      case 'delivered':
        if (send) {
          await advance(trx, send, 'delivered', { deliveredAt: sql`coalesce(delivered_at, ${at})` });
          await countForBreaker(trx, send, 'delivered', at, options);
        }
        break;
      // SES reports the address and user agent of its own pixel and redirect: judged like ours
      // (docs/email.md, "Machine opens and clicks"); SES answers the request, so no HEAD is seen
      case 'opened': {
        const person = machineReasonOf('open', { method: 'GET', userAgent: event.userAgent, clientAddress: event.ipAddress }) === null;
        if (send)
          await advance(trx, send, 'opened', {
            openedAt: sql`coalesce(opened_at, ${at})`,
            ...(person ? { humanOpenedAt: sql`coalesce(human_opened_at, ${at})` } : {}),
          });
        break;
      }
      case 'clicked': {
        const person = machineReasonOf('click', { method: 'GET', userAgent: event.userAgent, clientAddress: event.ipAddress }) === null;
        if (send)
          await advance(trx, send, 'clicked', {
            clickedAt: sql`coalesce(clicked_at, ${at})`,
            ...(person ? { humanClickedAt: sql`coalesce(human_clicked_at, ${at})` } : {}),
          });
        break;
      }
      case 'bounced': {
        // soft (transient) bounces: SES keeps retrying; only permanent bounces count
        if (!event.permanent) break;
        if (send) {
          await advance(trx, send, 'bounced', { bouncedAt: sql`coalesce(bounced_at, ${at})` });
          await countForBreaker(trx, send, 'bounced', at, options);
        }
        for (const email of recipientsOf(event.recipients, send)) {
          if (send?.erasedAt) await keepAddressSuppression(trx, email, 'bounced', at);
          else await recordHardBounce(trx, { email, userId: send?.userId ?? null, threshold: options.bounceThreshold, at });
        }
        break;
      }
      case 'complained':
        if (send) {
          await advance(trx, send, 'complained', { complainedAt: sql`coalesce(complained_at, ${at})` });
          await countForBreaker(trx, send, 'complained', at, options);
        }
        for (const email of recipientsOf(event.recipients, send)) {
          // an erased recipient's send: honoured as a hash of the address, written back nowhere in clear
          if (send?.erasedAt) await keepAddressSuppression(trx, email, 'complained', at);
          else await recordComplaint(trx, { email, userId: send?.userId ?? null, at });
        }
        break;
      case 'rejected':
        if (send && PROGRESS[send.status] <= PROGRESS.sent) {
          await trx.updateTable('emailSends').set({ status: 'failed', errorMessage: event.reason, updatedAt: new Date() }).where('id', '=', send.id).execute();
        }
        break;
      case 'ignored':
        break;
    }
    return { processed: true, kind: event.kind, ...(send ? { emailSendId: send.id } : {}) };
  });
}

/**
 * The addresses a bounce or complaint counts against: a known send's own address (each send has
 * one), else the ones SES reports. SES reports a DSN's Final-Recipient, which for an address that
 * forwards is one never mailed (perhaps another contact's), while the address mailed bounces on.
 */
function recipientsOf(recipients: string[], send: EmailSendRow | undefined): string[] {
  const list = send ? [send.toEmail] : recipients;
  return [...new Set(list.map((email) => email.trim()).filter((email) => email !== ''))];
}

async function advance(db: Db, send: EmailSendRow, status: EmailStatus, timestamps: Record<string, unknown>): Promise<void> {
  await db
    .updateTable('emailSends')
    .set({ ...timestamps, ...(PROGRESS[status] > PROGRESS[send.status] ? { status } : {}), updatedAt: new Date() })
    .where('id', '=', send.id)
    .execute();
}
