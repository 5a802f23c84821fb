import { randomUUID } from 'node:crypto';
import { defineJourney } from '@waymark/journey';
import { sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import { createJourneyRegistry } from '../journeys/registry';
import { enterJourney } from '../journeys/run-steps';
import { createLogger } from '../logging/logger';
import { integrationEnv } from '../../../../test/test-env';
import { deploymentCategories } from '../../../../test/deployment-categories';
import type { EffectDispatcher } from './effect-dispatcher';
import type { EventEffect } from './effects-statement';
import { ingestEvent } from './ingest';
import { ingestEvents } from './ingest-batch';
import type { IngestDeps } from './ingest-deps';

/**
 * A single event is a batch of one: ingestEvent (the data plane) and ingestEvents (the tracking
 * queue) given the same event write the same rows (event, contact, exit, kept effects), hand the
 * same effects over, answer the same repeat, and cost the same statements.
 */
describe('ingestEvent and ingestEvents with one event', () => {
  const config = loadConfig(integrationEnv());
  const suffix = randomUUID().slice(0, 8);
  const journey = defineJourney({
    id: `ingest-one-${suffix}`,
    name: 'ingest one',
    description: 'started by one event, left on another',
    trigger: { event: `ingest-one-${suffix}.started` },
    exitOn: [{ event: `ingest-one-${suffix}.left` }],
    run: async () => undefined,
  });
  const journeys = createJourneyRegistry([journey], { enabledJourneys: '*' });
  let db: Db;
  let statements = 0;
  const counting: KyselyPlugin = {
    transformQuery: (args) => {
      statements += 1;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  const dispatched: { eventId: string; effects: Omit<EventEffect, 'eventId'>[] }[] = [];
  const effects: EffectDispatcher = {
    dispatch: (event, kept) => dispatched.push({ eventId: event.id, effects: kept.map(({ eventId: _, ...effect }) => effect) }),
    finish: async () => undefined,
    close: async () => undefined,
  };
  const deps = (): IngestDeps => ({
    db: db.withPlugin(counting),
    logger: createLogger({ level: 'error', name: 'ingest-one-test', format: 'json' }),
    journeys,
    effects,
    catalogMode: 'quarantine',
  });
  beforeAll(() => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 2 });
  });
  afterAll(() => db.destroy());

  /** what ingest wrote for `userId`, with the ids that differ between users left out */
  const written = async (userId: string) => ({
    events: await db
      .selectFrom('events')
      .select(['event', 'userEmail', 'properties', 'source', 'idempotencyKey', 'catalogViolations'])
      .where('userId', '=', userId)
      .orderBy('occurredAt')
      .execute(),
    effects: await db
      .selectFrom('eventEffects')
      .select(['seq', 'kind', 'journeyId', 'workflowId'])
      .where('userId', '=', userId)
      .orderBy('createdAt')
      .orderBy('seq')
      .execute(),
    contact: await db.selectFrom('contacts').select(['email', 'properties']).where('externalId', '=', userId).executeTakeFirst(),
    states: await db.selectFrom('journeyStates').select(['journeyId', 'status']).where('userId', '=', userId).execute(),
  });
  const enter = async (userId: string) => {
    const entry = await enterJourney(
      db,
      {
        journeyId: journey.id,
        userId,
        userEmail: `${userId}@example.com`,
        workflowId: `journey:${journey.id}:${userId}`,
        runId: randomUUID(),
        entryLimit: 'once',
        context: {},
      },
      deploymentCategories,
    );
    if (!entry.entered) throw new Error(`not entered: ${entry.reason}`);
    return entry.stateId;
  };
  /** the two events of the scenario for `userId`: one that starts the journey, one that exits the user's run */
  const inputs = (userId: string) => [
    {
      name: `ingest-one-${suffix}.started`,
      userId,
      email: `${userId}@example.com`,
      eventProperties: { plan: 'pro' },
      contactProperties: { tier: 'gold' },
      source: 'api' as const,
    },
    { name: `ingest-one-${suffix}.left`, userId, eventProperties: { reason: 'closed' }, idempotencyKey: `left-${userId}`, source: 'api' as const },
  ];
  /** `value` with `from` (a user id) read as `to`: the other path's rows, compared field for field */
  const asUser = <T>(value: T, to: string, from: string): T => JSON.parse(JSON.stringify(value).replaceAll(from, to)) as T;

  it('store the same rows, hand over the same effects, answer a repeat alike and cost the same statements', async () => {
    const single = `one-single-${suffix}`;
    const batch = `one-batch-${suffix}`;
    const singleState = await enter(single);
    const batchState = await enter(batch);
    const counts = { single: [] as number[], batch: [] as number[] };
    const counted = async <T>(path: 'single' | 'batch', call: () => Promise<T>): Promise<T> => {
      statements = 0;
      const answer = await call();
      counts[path].push(statements);
      return answer;
    };

    const batchInputs = inputs(batch);
    const firstIds: string[] = [];
    for (const [index, input] of inputs(single).entries()) {
      const answer = await counted('single', () => ingestEvent(deps(), input));
      const [result] = await counted('batch', () => ingestEvents(deps(), [batchInputs[index]!]));
      expect(answer).toEqual({ stored: true, eventId: expect.any(String), exits: [{ journeyId: journey.id, stateId: singleState, exited: index === 1 }] });
      expect(result).toEqual({ stored: true, eventId: expect.any(String), exitedStateIds: index === 1 ? [batchState] : [] });
      firstIds.push(answer.eventId, result!.eventId);
    }
    // the exit event again (same Idempotency-Key): nothing stored, the first event's id
    const again = await counted('single', () => ingestEvent(deps(), inputs(single)[1]!));
    const [againBatch] = await counted('batch', () => ingestEvents(deps(), [batchInputs[1]!]));
    expect(again).toEqual({ stored: false, eventId: firstIds[2], exits: [] });
    expect(againBatch).toEqual({ stored: false, eventId: firstIds[3], exitedStateIds: [] });

    expect(asUser(await written(batch), single, batch)).toEqual(await written(single));
    expect((await written(single)).effects.map((effect) => effect.kind)).toEqual(['start', 'exit']);
    // handed over in order: single, batch for each event
    expect(dispatched.map((entry) => entry.eventId)).toEqual(firstIds);
    expect(asUser(dispatched[1]!.effects, single, batch)).toEqual(dispatched[0]!.effects);
    expect(asUser(dispatched[3]!.effects, single, batch)).toEqual(dispatched[2]!.effects);
    // one statement per stored event (the contact upsert is part of it), one more for an event that
    // passes an exit rule (its user's exit lock, exit-lock.ts) and for a repeat (its stored id)
    expect(counts.single).toEqual([1, 2, 3]);
    expect(counts.batch).toEqual(counts.single);
  });

  it("send one event's store statement by name: a connection stops planning it after a few events", async () => {
    // one connection: the session that prepared the statement is the one asked about it
    const one = createDatabase({ connectionString: config.databaseUrl, max: 1 });
    try {
      const runs = 10;
      for (let n = 0; n < runs; n += 1)
        await ingestEvent({ ...deps(), db: one }, { name: `ingest-one-${suffix}.noop`, userId: `named-${suffix}-${n}`, source: 'api' });
      const prepared = await sql<{ generic: number; custom: number }>`
        select generic_plans as generic, custom_plans as custom from pg_prepared_statements where statement like '/* named */%'`.execute(one);
      expect(prepared.rows).toHaveLength(1);
      const [{ generic, custom }] = prepared.rows as [{ generic: number; custom: number }];
      expect(generic + custom).toBe(runs);
      // PostgreSQL plans the first five anew, then keeps its generic plan
      expect(generic).toBeGreaterThanOrEqual(runs - 5);
    } finally {
      await one.destroy();
    }
  });
});
