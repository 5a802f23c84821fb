import type { Db } from '../db/database';
import type { SegmentRow } from '../db/schema';
import { toContact, type Contact } from '../contacts/contact';
import { badRequest, conflict, notFound } from '../errors/app-error';
import { isUuid } from '../db/ids';
import { isUniqueViolation } from '../db/pg-errors';
import type { PageQuery } from '../db/paginate';
import { segmentFilter } from './compile-segment';
import { parseSegmentConditions, segmentListKeys, type SegmentCondition } from './segment-conditions';
import type { SegmentCounts } from './segment-counts';

export const SEGMENT_NOT_FOUND = 'Segment not found';
export const DUPLICATE_SEGMENT_NAME = 'A segment with this name already exists';
export const PREVIEW_SAMPLE_SIZE = 20;

export interface Segment {
  id: string;
  name: string;
  description: string | null;
  conditions: SegmentCondition;
  /** contacts matching now (computed on read, up to 60 s old) */
  count: number;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface SegmentDeps {
  db: Db;
  counts: SegmentCounts;
  now?: () => Date;
}

function now(deps: SegmentDeps): Date {
  return deps.now?.() ?? new Date();
}

/** Checks a tree and that every list it names exists: 400 with the path otherwise. */
export async function checkSegmentConditions(db: Db, value: unknown): Promise<SegmentCondition> {
  const conditions = parseSegmentConditions(value);
  const lists = segmentListKeys(conditions);
  if (lists.length > 0) {
    const found = await db
      .selectFrom('lists')
      .select('key')
      .where(
        'key',
        'in',
        lists.map((list) => list.key),
      )
      .execute();
    const known = new Set(found.map((row) => row.key));
    const missing = lists.find((list) => !known.has(list.key));
    if (missing !== undefined) throw badRequest(`${missing.path}: no list with key '${missing.key}'`);
  }
  return conditions;
}

/** How many contacts a tree matches, in one query. */
export async function countSegmentContacts(db: Db, conditions: SegmentCondition, at: Date): Promise<number> {
  const row = await db
    .selectFrom('contacts as c')
    .where(segmentFilter(conditions, at))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function pageOfContacts(db: Db, conditions: SegmentCondition, at: Date, page: PageQuery): Promise<Contact[]> {
  const rows = await db
    .selectFrom('contacts as c')
    .where(segmentFilter(conditions, at))
    .selectAll('c')
    // the contacts list's order, led by its indexed minute (migration 0130): the first page reads
    // the newest contacts from the index and stops, instead of sorting every match
    .orderBy('c.lastSeenMinute', 'desc')
    .orderBy('c.lastSeenAt', 'desc')
    .orderBy('c.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(toContact);
}

async function toSegment(deps: SegmentDeps, row: SegmentRow): Promise<Segment> {
  const conditions = row.conditions as unknown as SegmentCondition;
  const count = await deps.counts.get(`${row.id}:${row.updatedAt.getTime()}`, () => countSegmentContacts(deps.db, conditions, now(deps)));
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    conditions,
    count,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

async function findSegmentRow(db: Db, id: string): Promise<SegmentRow | undefined> {
  if (!isUuid(id)) return undefined;
  return db.selectFrom('segments').selectAll().where('id', '=', id).executeTakeFirst();
}

async function getSegmentRow(db: Db, id: string): Promise<SegmentRow> {
  const row = await findSegmentRow(db, id);
  if (row === undefined) throw notFound(SEGMENT_NOT_FOUND);
  return row;
}

export interface SegmentInput {
  name: string;
  description?: string | null | undefined;
  conditions: unknown;
}

export async function createSegment(deps: SegmentDeps, input: SegmentInput, createdBy: string | null): Promise<Segment> {
  const conditions = await checkSegmentConditions(deps.db, input.conditions);
  try {
    const row = await deps.db
      .insertInto('segments')
      .values({ name: input.name, description: input.description ?? null, conditions: JSON.stringify(conditions), createdBy })
      .returningAll()
      .executeTakeFirstOrThrow();
    return await toSegment(deps, row);
  } catch (error) {
    if (isUniqueViolation(error, 'segments_name_key')) throw conflict(DUPLICATE_SEGMENT_NAME);
    throw error;
  }
}

export async function updateSegment(deps: SegmentDeps, id: string, input: Partial<SegmentInput>): Promise<Segment> {
  await getSegmentRow(deps.db, id);
  const conditions = input.conditions === undefined ? undefined : await checkSegmentConditions(deps.db, input.conditions);
  try {
    const row = await deps.db
      .updateTable('segments')
      .set({
        updatedAt: new Date(),
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.description === undefined ? {} : { description: input.description }),
        ...(conditions === undefined ? {} : { conditions: JSON.stringify(conditions) }),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    if (row === undefined) throw notFound(SEGMENT_NOT_FOUND);
    return await toSegment(deps, row);
  } catch (error) {
    if (isUniqueViolation(error, 'segments_name_key')) throw conflict(DUPLICATE_SEGMENT_NAME);
    throw error;
  }
}

export async function deleteSegment(db: Db, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound(SEGMENT_NOT_FOUND);
  // a broadcast that is scheduled or under way resolves or re-reads its audience from the segment
  // (docs/broadcasts.md); a draft only loses it (its audience must be chosen again before sending)
  const user = await db
    .selectFrom('broadcasts')
    .select(['name', 'status'])
    .where('segmentId', '=', id)
    .where('status', 'in', ['scheduled', 'sending', 'testing', 'paused'])
    .executeTakeFirst();
  if (user !== undefined) throw conflict(`The segment is used by the ${user.status} broadcast '${user.name}'; cancel it or wait until it is sent`);
  const deleted = await db.deleteFrom('segments').where('id', '=', id).executeTakeFirst();
  if (deleted.numDeletedRows === 0n) throw notFound(SEGMENT_NOT_FOUND);
}

export async function getSegment(deps: SegmentDeps, id: string): Promise<Segment> {
  return toSegment(deps, await getSegmentRow(deps.db, id));
}

export async function listSegments(deps: SegmentDeps, page: PageQuery): Promise<{ segments: Segment[]; total: number }> {
  const [rows, total] = await Promise.all([
    deps.db.selectFrom('segments').selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
    deps.db
      .selectFrom('segments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  const segments = [];
  // one count at a time: each is a query over every contact, and the pool is shared with the rest of the api
  for (const row of rows) segments.push(await toSegment(deps, row));
  return { segments, total: Number(total.n) };
}

/** The segment's contacts now, most recently seen first; `total` is exact (not the cached count). */
export async function listSegmentContacts(deps: SegmentDeps, id: string, page: PageQuery): Promise<{ contacts: Contact[]; total: number }> {
  const row = await getSegmentRow(deps.db, id);
  const conditions = row.conditions as unknown as SegmentCondition;
  const at = now(deps);
  const [contacts, total] = await Promise.all([pageOfContacts(deps.db, conditions, at, page), countSegmentContacts(deps.db, conditions, at)]);
  return { contacts, total };
}

/** POST /segments/preview: how many contacts a tree matches and the first of them, nothing saved. */
export async function previewSegment(deps: SegmentDeps, value: unknown): Promise<{ count: number; sample: Contact[] }> {
  const conditions = await checkSegmentConditions(deps.db, value);
  const at = now(deps);
  const [count, sample] = await Promise.all([
    countSegmentContacts(deps.db, conditions, at),
    pageOfContacts(deps.db, conditions, at, { limit: PREVIEW_SAMPLE_SIZE, offset: 0 }),
  ]);
  return { count, sample };
}
