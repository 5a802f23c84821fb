import { sql } from 'kysely';
import type { Db } from '../db/database';

/**
 * The `suppress.hours` rule of a journey (docs/email.md): a journey email is not sent to an
 * address within N hours of the previous *journey* email sent to it (by any journey;
 * transactional sends do not count). Returns when the window ends, or undefined when the send
 * may go now. The caller waits durably until then instead of dropping the email.
 */
export async function findSuppressWindowEnd(
  db: Db,
  input: { toEmail: string; hours: number; excludeIdempotencyKey?: string; now?: Date },
): Promise<Date | undefined> {
  if (!(input.hours > 0)) return undefined;
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
  if (row?.lastSentAt == null) return undefined;
  const end = new Date(new Date(row.lastSentAt).getTime() + input.hours * 3_600_000);
  return end.getTime() > (input.now ?? new Date()).getTime() ? end : undefined;
}
