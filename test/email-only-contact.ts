import { sql } from 'kysely';
import type { Db } from '@waymark/core/db/database';
import { emailsTo, header, waitFor, type EmulatorEmail } from './email-emulator';
import type { TestApi } from './test-api';

/** The first email the SES emulator holds for an address, once it has one. */
export async function firstEmailTo(address: string, what: string): Promise<EmulatorEmail> {
  const [message] = await waitFor(
    async () => {
      const found = await emailsTo(address);
      return found.length > 0 ? found : undefined;
    },
    { timeoutMs: 45_000, what },
  );
  return message!;
}

/** The recipient's one-click unsubscribe (RFC 8058) from an email's List-Unsubscribe header; the answer's status. */
export async function oneClickUnsubscribe(api: TestApi, message: EmulatorEmail): Promise<number> {
  const answer = await fetch(`${api.url}${header(message, 'List-Unsubscribe')!.slice(1, -1).replace(api.config.apiPublicUrl, '')}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  });
  return answer.status;
}

/** The contact of an address with no external id: the one its email-only events upsert. */
export function emailOnlyContactOf(db: Db, address: string) {
  return db
    .selectFrom('contacts')
    .selectAll()
    .where('externalId', 'is', null)
    .where(sql`lower(email)`, '=', address.toLowerCase())
    .executeTakeFirstOrThrow();
}

/** Every preference row of an address, whoever's (ordered by user id, none last): a query to select the columns a test compares. */
export function preferenceRowsOf(db: Db, address: string) {
  return db
    .selectFrom('emailPreferences')
    .where(sql`lower(email)`, '=', address.toLowerCase())
    .orderBy('userId');
}
