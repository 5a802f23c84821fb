import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseContact } from '@waymark/core/contact-removal/remove-contact';
import { startTestApi, type TestApi } from '../../../../../test/test-api';
import { seedTrackedSends } from '../../../../../test/tracked-sends';

const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';

/**
 * docs/operations.md, "Contacts": someone erased who later opens or clicks an email they were sent
 * is counted on the send, but their address and user agent are not kept, and no `email.opened` or
 * `email.link_clicked` is stored: storing it would upsert their contact, bringing back the person
 * the erasure removed (and could enrol them in a journey).
 */
describe("an erased recipient's opens and clicks", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api?.close());

  it('are counted without who made them, store no event and bring no contact back; a kept recipient’s are recorded as before', async () => {
    const db = api.deps.db;
    const erasedId = `erased-hits-${randomUUID()}`;
    const keptId = `kept-hits-${randomUUID()}`;
    const erasedTo = `${erasedId}@hits.test`;
    const keptTo = `${keptId}@hits.test`;
    await db
      .insertInto('contacts')
      .values([
        { externalId: erasedId, email: erasedTo },
        { externalId: keptId, email: keptTo },
      ])
      .execute();
    // sent an hour ago: past the machine-click window, so no click waits for a verdict
    const [erased, kept] = await seedTrackedSends(
      db,
      [
        { toEmail: erasedTo, userId: erasedId, sentAt: new Date(Date.now() - 3_600_000) },
        { toEmail: keptTo, userId: keptId, sentAt: new Date(Date.now() - 3_600_000) },
      ],
      'https://app.example.com/pricing',
    );
    await eraseContact(db, erasedId);

    const hit = async (path: string) => api.request('GET', path, { headers: { 'user-agent': BROWSER, 'x-forwarded-for': '203.0.113.77' } });
    for (const send of [erased!, kept!]) {
      const click = await hit(`/v1/t/c/${send.linkId}`);
      expect(click.status).toBe(302);
      // the erased send's link forgot where it pointed (a URL can carry the person's data): the service's own page
      expect(click.headers.get('location')).toBe(send === erased ? api.deps.config.apiPublicUrl : 'https://app.example.com/pricing');
      expect((await hit(`/v1/t/o/${send.sendId}`)).status).toBe(200);
    }
    await api.deps.tracking.settled();
    await api.deps.trackingEvents.drain();

    const hitsOf = async (send: { sendId: string; linkId: string }) => ({
      clicks: await db.selectFrom('linkClicks').select(['id', 'ipAddress', 'userAgent']).where('trackedLinkId', '=', send.linkId).execute(),
      opens: await db.selectFrom('emailOpens').select(['ipAddress', 'userAgent']).where('emailSendId', '=', send.sendId).execute(),
      send: await db.selectFrom('emailSends').select(['openedAt', 'clickedAt', 'status']).where('id', '=', send.sendId).executeTakeFirstOrThrow(),
    });

    const gone = await hitsOf(erased!);
    expect(gone.clicks).toEqual([{ id: expect.any(String), ipAddress: null, userAgent: null }]);
    expect(gone.opens).toEqual([{ ipAddress: null, userAgent: null }]);
    expect(gone.send).toMatchObject({ status: 'clicked', openedAt: expect.any(Date), clickedAt: expect.any(Date) });
    expect(await db.selectFrom('events').select('event').where('userId', '=', erasedId).execute()).toEqual([]);
    expect(await db.selectFrom('contacts').select('id').where('externalId', '=', erasedId).execute()).toEqual([]);

    const recorded = await hitsOf(kept!);
    expect(recorded.clicks).toEqual([{ id: expect.any(String), ipAddress: '203.0.113.77', userAgent: BROWSER }]);
    expect(recorded.opens).toEqual([{ ipAddress: '203.0.113.77', userAgent: BROWSER }]);
    expect((await db.selectFrom('events').select('event').where('userId', '=', keptId).orderBy('event').execute()).map((row) => row.event)).toEqual([
      'email.link_clicked',
      'email.opened',
    ]);
  });
});
