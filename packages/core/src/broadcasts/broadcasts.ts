import type { TemplateRegistry } from '@waymark/email/email-template';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import type { Db } from '../db/database';
import { isUuid } from '../db/ids';
import { paginate, type PageQuery } from '../db/paginate';
import type { BroadcastRow, BroadcastStatus, JsonObject } from '../db/schema';
import { badRequest, conflict, notFound } from '../errors/app-error';
import { assertKnownCategories } from '../preferences/contact-preferences';
import { durationMs } from '@waymark/journey';
import type { AbTest, BroadcastAudience, BroadcastGoal, BroadcastInput, BroadcastPatch, BroadcastVariant } from './broadcast-schemas';
import { broadcastStats, emptyCounts, withGoal, type BroadcastCounts, type BroadcastStats } from './broadcast-stats';
import { checkBroadcastData, getBroadcastTemplate } from './broadcast-template-data';

export const BROADCAST_NOT_FOUND = 'Broadcast not found';

export interface BroadcastVariantView extends BroadcastVariant {
  /** the A/B test picked this variant (the rest of the audience got it) */
  winner: boolean;
  stats: BroadcastStats;
}

export interface Broadcast {
  id: string;
  name: string;
  templateKey: string;
  category: string;
  audience: BroadcastAudience;
  data: JsonObject;
  subject: string | null;
  scheduledAt: Date | null;
  localTime: string | null;
  variants: BroadcastVariantView[] | null;
  abTest: AbTest | null;
  /** the conversion it is measured by (docs/broadcasts.md, "Goals and holdouts") */
  goal: BroadcastGoal | null;
  /** share of the audience held out of the email (0–50) */
  holdoutPercent: number;
  status: BroadcastStatus;
  /** recipients in the snapshot taken when sending started (null before) */
  audienceSize: number | null;
  /** recipients past pending, of audienceSize */
  progress: { done: number; total: number };
  stats: BroadcastStats;
  winnerVariantId: string | null;
  error: string | null;
  /** `reputation`: paused by the reputation breaker, resumed with it */
  pausedReason: string | null;
  /** today's warm-up allowance is spent: the rest of the recipients send from this instant (docs/email.md, "Warm-up") */
  warmupUntil: Date | null;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
}

export interface BroadcastDeps {
  db: Db;
  templates: TemplateRegistry;
  categories: PreferenceCategories;
}

function toBroadcast(row: BroadcastRow, counts: { total: BroadcastCounts; variants: Map<string, BroadcastCounts> } | undefined): Broadcast {
  const variants = row.variants as unknown as BroadcastVariant[] | null;
  const goal = row.goal as unknown as BroadcastGoal | null;
  const statsOf = (of: BroadcastCounts | undefined) => withGoal(of ?? emptyCounts(), goal, row.holdoutPercent);
  return {
    id: row.id,
    name: row.name,
    templateKey: row.templateKey,
    category: row.category,
    audience: row.audience as unknown as BroadcastAudience,
    data: row.data,
    subject: row.subject,
    scheduledAt: row.scheduledAt,
    localTime: row.localTime,
    variants:
      variants?.map((variant) => ({
        ...variant,
        winner: variant.id === row.winnerVariantId,
        stats: statsOf(counts?.variants.get(variant.id)),
      })) ?? null,
    abTest: row.abTest as unknown as AbTest | null,
    goal,
    holdoutPercent: row.holdoutPercent,
    status: row.status,
    audienceSize: row.audienceSize,
    progress: { done: counts?.total.done ?? 0, total: row.audienceSize ?? 0 },
    stats: statsOf(counts?.total),
    winnerVariantId: row.winnerVariantId,
    error: row.error,
    pausedReason: row.pausedReason,
    warmupUntil: row.warmupUntil,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    startedAt: row.startedAt,
    completedAt: row.completedAt,
  };
}

/** Broadcasts with their stats (one stats query for all of them). */
export async function toBroadcasts(db: Db, rows: readonly BroadcastRow[]): Promise<Broadcast[]> {
  const stats = await broadcastStats(
    db,
    rows.filter((row) => row.startedAt !== null).map((row) => row.id),
  );
  return rows.map((row) => toBroadcast(row, stats.get(row.id)));
}

export async function findBroadcastRow(db: Db, id: string): Promise<BroadcastRow | undefined> {
  if (!isUuid(id)) return undefined;
  return db.selectFrom('broadcasts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function getBroadcastRow(db: Db, id: string): Promise<BroadcastRow> {
  const row = await findBroadcastRow(db, id);
  if (row === undefined) throw notFound(BROADCAST_NOT_FOUND);
  return row;
}

export async function getBroadcast(db: Db, id: string): Promise<Broadcast> {
  const [broadcast] = await toBroadcasts(db, [await getBroadcastRow(db, id)]);
  return broadcast!;
}

export async function listBroadcasts(db: Db, page: PageQuery): Promise<{ broadcasts: Broadcast[]; total: number }> {
  const filtered = db.selectFrom('broadcasts');
  const { rows, total } = await paginate(filtered.selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc'), filtered, page);
  return { broadcasts: await toBroadcasts(db, rows), total };
}

/** What a stored broadcast is defined by: the create body, or a draft with a patch applied. */
interface BroadcastDefinition {
  templateKey: string;
  category: string;
  audience: BroadcastAudience;
  data: Record<string, unknown>;
  variants: BroadcastVariant[] | null;
}

/** Every rule that needs more than the body's shape: templates, props, category, audience. 400 naming the field. */
async function checkDefinition(deps: BroadcastDeps, definition: BroadcastDefinition): Promise<void> {
  const template = getBroadcastTemplate(deps.templates, definition.templateKey, 'templateKey');
  checkBroadcastData(template, definition.data, 'data');
  definition.variants?.forEach((variant, index) => {
    const path = `variants[${index}]`;
    const variantTemplate = variant.templateKey === undefined ? template : getBroadcastTemplate(deps.templates, variant.templateKey, `${path}.templateKey`);
    checkBroadcastData(variantTemplate, { ...definition.data, ...variant.data }, `${path}.data`);
  });
  assertKnownCategories(deps.categories, [definition.category]);
  // a required category's emails pass every opt-out because the person asked for them; nobody asks for a broadcast
  if (deps.categories.required(definition.category))
    throw badRequest(
      `category: '${definition.category}' is a required category (emails a person asked for, sent whatever their opt-outs); a broadcast may not use it`,
    );
  const audience = definition.audience;
  if ('segmentId' in audience) {
    const segment = await deps.db.selectFrom('segments').select('id').where('id', '=', audience.segmentId).executeTakeFirst();
    if (segment === undefined) throw badRequest(`audience.segmentId: no segment '${audience.segmentId}'`);
  } else if ('listKey' in audience) {
    const list = await deps.db.selectFrom('lists').select('id').where('key', '=', audience.listKey).executeTakeFirst();
    if (list === undefined) throw badRequest(`audience.listKey: no list with key '${audience.listKey}'`);
  }
}

function segmentIdOf(audience: BroadcastAudience): string | null {
  return 'segmentId' in audience ? audience.segmentId : null;
}

export async function createBroadcast(deps: BroadcastDeps, input: BroadcastInput, createdBy: string | null): Promise<Broadcast> {
  const data = input.data ?? {};
  await checkDefinition(deps, { ...input, data, variants: input.variants ?? null });
  const row = await deps.db
    .insertInto('broadcasts')
    .values({
      name: input.name,
      templateKey: input.templateKey,
      category: input.category,
      audience: JSON.stringify(input.audience),
      segmentId: segmentIdOf(input.audience),
      data: JSON.stringify(data),
      subject: input.subject ?? null,
      scheduledAt: input.scheduledAt === undefined ? null : new Date(input.scheduledAt),
      localTime: input.localTime ?? null,
      variants: input.variants === undefined ? null : JSON.stringify(input.variants),
      abTest: input.abTest === undefined ? null : JSON.stringify(input.abTest),
      ...goalColumns(input.goal ?? null),
      holdoutPercent: input.holdoutPercent ?? 0,
      createdBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toBroadcast(row, undefined);
}

/** The goal as given, and its window in ms, which the statement storing an event compares with (broadcast-conversions.ts). */
function goalColumns(goal: BroadcastGoal | null): { goal: string | null; goalWithinMs: number | null } {
  return goal === null ? { goal: null, goalWithinMs: null } : { goal: JSON.stringify(goal), goalWithinMs: durationMs(goal.within) };
}

/** 409 unless the broadcast is a draft: what has started sending is no longer edited. */
function draftOnly(row: BroadcastRow, what: string): void {
  if (row.status !== 'draft') throw conflict(`Only a draft broadcast can be ${what}; this one is ${row.status}`);
}

export async function updateBroadcast(deps: BroadcastDeps, id: string, patch: BroadcastPatch): Promise<Broadcast> {
  const current = await getBroadcastRow(deps.db, id);
  draftOnly(current, 'changed');
  const pick = <T>(value: T | null | undefined, stored: T | null): T | null => (value === undefined ? stored : value);
  const audience = patch.audience ?? (current.audience as unknown as BroadcastAudience);
  const variants = pick(patch.variants, current.variants as unknown as BroadcastVariant[] | null);
  const abTest = pick(patch.abTest, current.abTest as unknown as AbTest | null);
  if (abTest !== null && variants === null) throw badRequest('abTest: an A/B test needs 2 to 5 variants');
  const goal = pick(patch.goal, current.goal as unknown as BroadcastGoal | null);
  const holdoutPercent = patch.holdoutPercent ?? current.holdoutPercent;
  if (holdoutPercent > 0 && goal === null) throw badRequest('holdoutPercent: a holdout needs a goal: without one there is no conversion to compare');
  const definition: BroadcastDefinition = {
    templateKey: patch.templateKey ?? current.templateKey,
    category: patch.category ?? current.category,
    audience,
    data: pick(patch.data, current.data) ?? {},
    variants,
  };
  await checkDefinition(deps, definition);
  const scheduledAt = pick(patch.scheduledAt, current.scheduledAt?.toISOString() ?? null);
  const row = await deps.db
    .updateTable('broadcasts')
    .set({
      name: patch.name ?? current.name,
      templateKey: definition.templateKey,
      category: definition.category,
      audience: JSON.stringify(audience),
      segmentId: segmentIdOf(audience),
      data: JSON.stringify(definition.data),
      subject: pick(patch.subject, current.subject),
      scheduledAt: scheduledAt === null ? null : new Date(scheduledAt),
      localTime: pick(patch.localTime, current.localTime),
      variants: variants === null ? null : JSON.stringify(variants),
      abTest: abTest === null ? null : JSON.stringify(abTest),
      ...goalColumns(goal),
      holdoutPercent,
      updatedAt: new Date(),
    })
    .where('id', '=', id)
    .where('status', '=', 'draft')
    .returningAll()
    .executeTakeFirst();
  if (row === undefined) throw conflict('Only a draft broadcast can be changed; this one has just left draft');
  return toBroadcast(row, undefined);
}

export async function deleteBroadcast(db: Db, id: string): Promise<void> {
  const current = await getBroadcastRow(db, id);
  draftOnly(current, 'deleted');
  const deleted = await db.deleteFrom('broadcasts').where('id', '=', id).where('status', '=', 'draft').executeTakeFirst();
  if (deleted.numDeletedRows === 0n) throw conflict('Only a draft broadcast can be deleted; this one has just left draft');
}
