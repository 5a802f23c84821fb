import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { SegmentRow } from '../db/schema';
import { toContact, type Contact } from '../contacts/contact';
import { AppError, badRequest, conflict, notFound } from '../errors/app-error';
import { isUuid } from '../db/ids';
import { isUniqueViolation } from '../db/pg-errors';
import { paginate, type PageQuery } from '../db/paginate';
import { segmentFilter } from './compile-segment';
import { parseSegmentConditions, segmentListKeys, type SegmentCondition } from './segment-conditions';
import type { SegmentCounts } from './segment-counts';
import { costliestLeaf } from './segment-cost';

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
  /** SEGMENT_QUERY_TIMEOUT_MS: the statement_timeout of every segment query */
  queryTimeoutMs: number;
  now?: () => Date;
}

/** PostgreSQL's query_canceled, which a statement_timeout raises. */
const QUERY_CANCELED = '57014';

function tooExpensive(deps: SegmentDeps, conditions: SegmentCondition): AppError {
  const dearest = costliestLeaf(conditions);
  const where = dearest === undefined ? '' : `; its dearest condition is the ${dearest.kind} leaf at ${dearest.path}`;
  return new AppError(
    'unprocessable',
    `Segment too expensive: it did not finish within ${deps.queryTimeoutMs} ms${where}. Narrow it (a shorter window, fewer values, a list instead of a long 'in') or split it`,
  );
}

/**
 * Runs a segment's queries on one connection under SEGMENT_QUERY_TIMEOUT_MS (docs/segments.md,
 * Limits), so no tree can hold a connection of the pool ingest shares for long; past it, a 422
 * naming the dearest leaf. JIT is off for them: compiling a large expression cannot be
 * interrupted, so the timeout could not stop it.
 */
async function bounded<T>(deps: SegmentDeps, conditions: SegmentCondition, run: (db: Db) => Promise<T>): Promise<T> {
  try {
    return await deps.db.transaction().execute(async (trx) => {
      await sql`select set_config('statement_timeout', ${String(deps.queryTimeoutMs)}, true), set_config('jit', 'off', true)`.execute(trx);
      return run(trx);
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === QUERY_CANCELED) throw tooExpensive(deps, conditions);
    throw error;
  }
}

const boundedCount = (deps: SegmentDeps, conditions: SegmentCondition, at: Date) => bounded(deps, conditions, (db) => countSegmentContacts(db, conditions, at));

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

const matching = (db: Db, conditions: SegmentCondition, at: Date) => db.selectFrom('contacts as c').where(segmentFilter(conditions, at));

const inListOrder = (query: ReturnType<typeof matching>) =>
  query
    .selectAll('c')
    // the contacts list's order, led by its indexed minute (migration 0130): the first page reads
    // the newest contacts from the index and stops, instead of sorting every match
    .orderBy('c.lastSeenMinute', 'desc')
    .orderBy('c.lastSeenAt', 'desc')
    .orderBy('c.id', 'desc');

async function pageOfContacts(db: Db, conditions: SegmentCondition, at: Date, page: PageQuery): Promise<Contact[]> {
  const rows = await inListOrder(matching(db, conditions, at))
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(toContact);
}

/** `known`: the count just taken before a save, kept as this version's count. */
async function toSegment(deps: SegmentDeps, row: SegmentRow, known?: number): Promise<Segment> {
  const conditions = row.conditions as unknown as SegmentCondition;
  const count = await deps.counts.get(`${row.id}:${row.updatedAt.getTime()}`, () =>
    known === undefined ? boundedCount(deps, conditions, now(deps)) : Promise.resolve(known),
  );
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
  // counted before it is saved: a tree too expensive to count is refused, not stored
  const count = await boundedCount(deps, conditions, now(deps));
  try {
    const row = await deps.db
      .insertInto('segments')
      .values({ name: input.name, description: input.description ?? null, conditions: JSON.stringify(conditions), createdBy })
      .returningAll()
      .executeTakeFirstOrThrow();
    return await toSegment(deps, row, count);
  } catch (error) {
    if (isUniqueViolation(error, 'segments_name_key')) throw conflict(DUPLICATE_SEGMENT_NAME);
    throw error;
  }
}

export async function updateSegment(deps: SegmentDeps, id: string, input: Partial<SegmentInput>): Promise<Segment> {
  const existing = await getSegmentRow(deps.db, id);
  const conditions = input.conditions === undefined ? undefined : await checkSegmentConditions(deps.db, input.conditions);
  const count = await boundedCount(deps, conditions ?? (existing.conditions as unknown as SegmentCondition), now(deps));
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
    return await toSegment(deps, row, count);
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
  const all = deps.db.selectFrom('segments');
  const { rows, total } = await paginate(all.selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc'), all, page);
  const segments = [];
  // one count at a time: each is a query over every contact, and the pool is shared with the rest of the api
  for (const row of rows) segments.push(await toSegment(deps, row));
  return { segments, total };
}

/** The segment's contacts now, most recently seen first; `total` is exact (not the cached count). */
export async function listSegmentContacts(deps: SegmentDeps, id: string, page: PageQuery): Promise<{ contacts: Contact[]; total: number }> {
  const row = await getSegmentRow(deps.db, id);
  const conditions = row.conditions as unknown as SegmentCondition;
  const at = now(deps);
  return bounded(deps, conditions, async (db) => {
    const filtered = matching(db, conditions, at);
    const { rows, total } = await paginate(inListOrder(filtered), filtered, page);
    return { contacts: rows.map(toContact), total };
  });
}

/** POST /segments/preview: how many contacts a tree matches and the first of them, nothing saved. */
export async function previewSegment(deps: SegmentDeps, value: unknown): Promise<{ count: number; sample: Contact[] }> {
  const conditions = await checkSegmentConditions(deps.db, value);
  const at = now(deps);
  return bounded(deps, conditions, async (db) => ({
    count: await countSegmentContacts(db, conditions, at),
    sample: await pageOfContacts(db, conditions, at, { limit: PREVIEW_SAMPLE_SIZE, offset: 0 }),
  }));
}
