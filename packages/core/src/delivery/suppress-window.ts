import { sql } from 'kysely';
import type { Db } from '../db/database';

/**
 * The `suppress.hours` rule of a journey (docs/email.md): a journey email is not sent to an
 * address within N hours of the previous *journey* email sent to it (by any journey;
 * transactional sends do not count). Answers when the window ends, or undefined when the send
 * may go now. The caller waits durably until then instead of dropping the email. Pure, so the
 * journey test kit's world asks it as the send path does (delivery/admit-sends.ts).
 */
export function suppressWindowEnd(lastJourneySentAt: Date | undefined, hours: number, now: Date): Date | undefined {
  if (lastJourneySentAt === undefined || !(hours > 0)) return undefined;
  const end = new Date(lastJourneySentAt.getTime() + hours * 3_600_000);
  return end.getTime() > now.getTime() ? end : undefined;
}

/** When the last journey email reached `toEmail` (the send of `excludeIdempotencyKey` aside: a retry is not its own window). */
export async function lastJourneySendAt(db: Db, input: { toEmail: string; excludeIdempotencyKey?: string }): Promise<Date | undefined> {
  const row = await db
    .selectFrom('emailSends')
    .select(sql<Date | null>`max(sent_at)`.as('lastSentAt'))
    .where(sql`lower(to_email)`, '=', input.toEmail.toLowerCase())
    .where('journeyStateId', 'is not', null)
    .where('sentAt', 'is not', null)
    .$if(input.excludeIdempotencyKey !== undefined, (query) =>
      query.where((eb) => eb.or([eb('idempotencyKey', 'is', null), eb('idempotencyKey', '!=', input.excludeIdempotencyKey ?? '')])),
    )
    .executeTakeFirst();
  return row?.lastSentAt == null ? undefined : new Date(row.lastSentAt);
}
