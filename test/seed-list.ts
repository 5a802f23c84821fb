import { randomUUID } from 'node:crypto';
import type { Db } from '@waymark/core/db/database';

/**
 * A new list of new contacts, one per entry (address and properties), subscribed: a broadcast's
 * audience of a test's own, so the database's other contacts never count.
 */
export async function seedList(
  db: Db,
  people: readonly { email: string; properties?: Record<string, unknown> }[],
): Promise<{ listKey: string; contacts: { id: string; email: string | null }[] }> {
  const run = randomUUID().slice(0, 8);
  const list = await db
    .insertInto('lists')
    .values({ key: `list-${run}`, name: run })
    .returning(['id', 'key'])
    .executeTakeFirstOrThrow();
  const contacts = await db
    .insertInto('contacts')
    .values(
      people.map((person, i) => ({
        externalId: `list-${run}-${i}`,
        email: person.email,
        properties: JSON.stringify(person.properties ?? {}),
        firstSeenAt: new Date(),
        lastSeenAt: new Date(),
      })),
    )
    .returning(['id', 'email'])
    .execute();
  await db
    .insertInto('listMemberships')
    .values(contacts.map((contact) => ({ listId: list.id, contactId: contact.id, subscribed: true, updatedAt: new Date() })))
    .execute();
  return { listKey: list.key, contacts };
}
