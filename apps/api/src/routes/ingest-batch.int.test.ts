import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEffectDispatcher } from '@waymark/core/events/effect-dispatcher';
import { ingestEvents, type BatchIngestInput } from '@waymark/core/events/ingest-batch';
import type { IngestDeps } from '@waymark/core/events/ingest-deps';
import type { CatalogMode } from '@waymark/core/events/prepare-event';
import { createLogger } from '@waymark/core/logging/logger';
import { eventually } from '../../../../test/eventually';
import { journeyStatesOf } from '../../../../test/journey-states';
import { startTestApi, type TestApi } from '../../../../test/test-api';

const HOUR = 60 * 60 * 1000;

/**
 * The batched pipeline (the tracking event queue's) applies the same checks as POST /v1/events:
 * one prepareEvent for both. Before, a batch stored a time that cannot be real and a catalogued
 * event that misses its schema without a look.
 */
describe('ingestEvents (batched ingest): the checks of the single-event path', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  const logger = createLogger({ level: 'error', name: 'ingest-batch-test', format: 'json' });
  const deps = (catalogMode: CatalogMode): IngestDeps => ({
    db: api.deps.db,
    logger,
    journeys: api.deps.journeys,
    effects: createEffectDispatcher({ db: api.deps.db, logger, orchestrator: api.deps.temporal.orchestrator }),
    catalogMode,
  });
  const eventsOf = (userId: string) => api.deps.db.selectFrom('events').select(['id', 'event', 'catalogViolations']).where('userId', '=', userId).execute();
  const batch = (userId: string, odd: Omit<BatchIngestInput, 'userId' | 'source'>): BatchIngestInput[] => [
    { name: 'page.viewed', userId, source: 'tracking' },
    { ...odd, userId, source: 'tracking' },
  ];

  it('an event time that cannot be real refuses the whole batch (400) before anything is written', async () => {
    for (const timestamp of [new Date(Date.now() + 25 * HOUR), new Date('1969-12-31T23:59:59Z')]) {
      const userId = `batch-${randomUUID()}`;
      await expect(ingestEvents(deps('quarantine'), batch(userId, { name: 'page.viewed', timestamp }))).rejects.toMatchObject({
        status: 400,
        message: expect.stringContaining('timestamp must be between 1970-01-01'),
      });
      expect(await eventsOf(userId)).toEqual([]);
    }
  });

  it('reject: a catalogued event that misses its schema refuses the batch (400 naming the path), nothing written', async () => {
    const userId = `batch-${randomUUID()}`;
    await expect(ingestEvents(deps('reject'), batch(userId, { name: 'user.signed_up', eventProperties: { plan: 'gold' } }))).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^eventProperties\.plan: /),
    });
    expect(await eventsOf(userId)).toEqual([]);
  });

  it('quarantine: the event is stored with its violations and starts nothing; the rest of the batch is routed', async () => {
    const quarantinedUser = `batch-${randomUUID()}`;
    const validUser = `batch-${randomUUID()}`;
    const results = await ingestEvents(deps('quarantine'), [
      { name: 'user.signed_up', userId: quarantinedUser, email: `${quarantinedUser}@example.com`, eventProperties: { plan: 'gold' }, source: 'tracking' },
      { name: 'user.signed_up', userId: validUser, email: `${validUser}@example.com`, eventProperties: { plan: 'pro' }, source: 'tracking' },
    ]);
    expect(results.map((result) => result.stored)).toEqual([true, true]);
    expect(await eventsOf(quarantinedUser)).toEqual([
      { id: results[0]!.eventId, event: 'user.signed_up', catalogViolations: [{ path: 'plan', message: expect.any(String) }] },
    ]);
    expect(await eventsOf(validUser)).toEqual([{ id: results[1]!.eventId, event: 'user.signed_up', catalogViolations: null }]);
    const contact = await api.deps.db.selectFrom('contacts').select('email').where('externalId', '=', quarantinedUser).executeTakeFirstOrThrow();
    expect(contact.email).toBe(`${quarantinedUser}@example.com`);
    // the valid event's run starts; by then the quarantined one, sent alongside, has started none
    await eventually(
      () => journeyStatesOf(api.deps.db, validUser, 'welcome-series'),
      (rows) => rows.length === 1,
      { what: 'the valid event’s welcome-series run' },
    );
    expect(await journeyStatesOf(api.deps.db, quarantinedUser, 'welcome-series')).toEqual([]);
  });
});
