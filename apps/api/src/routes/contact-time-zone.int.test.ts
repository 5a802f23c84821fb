import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_DELIVERY_POLICY } from '@waymark/journey';
import { createJourneyActivities } from '@waymark/temporal/activities/journey';
import { issueApiKey, startTestApi, type TestApi } from '../../../../test/test-api';
import { deploymentCategories } from '../../../../test/deployment-categories';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const MESSAGE = 'must be an IANA time zone name such as Europe/Paris, got "Paris"';

describe("a contact's timezone property (the recipient time zone of quiet hours and sleepUntilLocal)", () => {
  let api: TestApi;
  let ingestKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    ingestKey = await issueApiKey(api, LEGACY, 'producer', ['ingest']);
  });
  afterAll(() => api.close());

  const storedEvents = (userId: string) => api.deps.db.selectFrom('events').select('id').where('userId', '=', userId).execute();

  it('an event with an unknown zone is refused whole (400 naming the field), a known one is stored', async () => {
    const userId = `u-${randomUUID()}`;
    const bad = await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'page.viewed', userId, contactProperties: { timezone: 'Paris' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe(`Invalid request: contactProperties.timezone ${MESSAGE}`);
    expect(await storedEvents(userId)).toEqual([]);
    const upsert = await api.request('POST', '/v1/contacts', { token: ingestKey, body: { userId, properties: { timezone: 'Paris' } } });
    expect(upsert.status).toBe(400);
    expect(upsert.body.error).toBe(`Invalid request: properties.timezone ${MESSAGE}`);

    const good = await api.request('POST', '/v1/events', {
      token: ingestKey,
      body: { name: 'page.viewed', userId, contactProperties: { timezone: 'Europe/Paris' } },
    });
    expect(good.status).toBe(202);
    const activities = createJourneyActivities({
      categories: deploymentCategories,
      db: api.deps.db,
      config: { defaultTimeZone: 'America/New_York' },
      journeys: { find: () => undefined },
      ingest: () => Promise.reject(new Error('unused')),
      deliveryPolicy: NO_DELIVERY_POLICY,
    });
    expect(await activities.recipientTimeZone({ userId })).toBe('Europe/Paris');
    // no contact, or a contact without the property: DEFAULT_TIMEZONE
    expect(await activities.recipientTimeZone({ userId: `nobody-${randomUUID()}` })).toBe('America/New_York');
  });

  it('the admin contacts API refuses an unknown zone on create and on edit (the studio edits through it)', async () => {
    const externalId = `c-${randomUUID()}`;
    const created = await api.request('POST', '/v1/admin/contacts', { token: LEGACY, body: { externalId, properties: { timezone: 'Paris' } } });
    expect(created.status).toBe(400);
    expect(created.body.error).toBe(`Invalid request: properties.timezone ${MESSAGE}`);
    expect((await api.request('POST', '/v1/admin/contacts', { token: LEGACY, body: { externalId, properties: { timezone: 'Asia/Tokyo' } } })).status).toBe(201);
    const edited = await api.request('PATCH', `/v1/admin/contacts/${externalId}`, { token: LEGACY, body: { properties: { timezone: 'Paris' } } });
    expect(edited.status).toBe(400);
    expect(edited.body.error).toBe(`Invalid request: properties.timezone ${MESSAGE}`);
    const removed = await api.request('PATCH', `/v1/admin/contacts/${externalId}`, { token: LEGACY, body: { properties: { timezone: null } } });
    expect(removed.body.properties).toEqual({});
  });
});
