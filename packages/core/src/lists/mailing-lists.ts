import type { Db } from '../db/database';
import type { ListRow } from '../db/schema';
import { conflict } from '../errors/app-error';

export interface MailingList {
  id: string;
  key: string;
  name: string;
  description: string | null;
  subscribers: number;
  createdAt: Date;
  updatedAt: Date;
}

function toMailingList(row: ListRow, subscribers: number): MailingList {
  return { id: row.id, key: row.key, name: row.name, description: row.description, subscribers, createdAt: row.createdAt, updatedAt: row.updatedAt };
}

export async function listMailingLists(db: Db): Promise<MailingList[]> {
  const rows = await db
    .selectFrom('lists')
    .leftJoin('listMemberships', (join) => join.onRef('listMemberships.listId', '=', 'lists.id').on('listMemberships.subscribed', '=', true))
    .selectAll('lists')
    .select((eb) => eb.fn.count<number>('listMemberships.contactId').as('subscribers'))
    .groupBy('lists.id')
    .orderBy('lists.key')
    .execute();
  return rows.map((row) => toMailingList(row, row.subscribers));
}

export interface CreateListInput {
  key: string;
  name: string;
  description?: string | undefined;
}

export async function createMailingList(db: Db, input: CreateListInput): Promise<MailingList> {
  const row = await db
    .insertInto('lists')
    .values({ key: input.key, name: input.name, description: input.description ?? null })
    .onConflict((oc) => oc.column('key').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (row === undefined) throw conflict('List with this key already exists');
  return toMailingList(row, 0);
}
