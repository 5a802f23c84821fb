import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { load } from 'cheerio';
import { defineJourney } from '@waymark/journey';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { sendEmail } from '@waymark/core/emails/send-email';
import { emailsTo, uniqueAddress, waitFor } from '../../../../../test/email-emulator';
import { registerTestJourneys } from '../../../../../test/journey-registry';
import { subscribeOutboxEndpoint } from '../../../../../test/webhook-endpoints';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const PUBLIC_URL = 'https://track.waymark-test.example';
const ADMIN = `legacy-${randomUUID()}-${randomUUID()}`;
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';

/**
 * Machine opens and clicks (docs/email.md, "Machine opens and clicks") over HTTP against the real
 * stack: each reason is recorded on the hit, sets openedAt / clickedAt but never humanOpenedAt /
 * humanClickedAt, reaches the pipeline as a machine event, and does not move a journey that waits
 * on a click or an open; a person's hit afterwards does all of that.
 */
describe('machine opens and clicks', () => {
  let api: TestApi;
  // behind a proxy: X-Forwarded-For names the client only here
  let proxied: TestApi;
  let unsubscribe: () => Promise<void>;

  beforeAll(async () => {
    api = await startTestApi({ API_PUBLIC_URL: PUBLIC_URL, ADMIN_API_KEY: ADMIN });
    proxied = await startTestApi({ API_PUBLIC_URL: PUBLIC_URL, TRUST_PROXY: 'true' });
    // outbound email.opened / email.clicked are written only while an endpoint listens
    unsubscribe = await subscribeOutboxEndpoint(api.deps.db, ['email.opened', 'email.clicked']);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await unsubscribe?.();
    await proxied?.close();
    await api?.close();
  });

  /** A real send through the emulator; `sentAgo` moves the provider's acceptance back so the click window is over. */
  async function sentEmail(options: { sentAgoMs?: number } = {}) {
    const to = uniqueAddress('machine');
    const userId = `u-${randomUUID()}`;
    const result = await sendEmail(api.deps.email, { templateKey: 'welcome-tips', to, userId, idempotencyKey: randomUUID() });
    if (result.status !== 'sent') throw new Error(`send ${result.status}`);
    const id = result.emailSendId;
    if (options.sentAgoMs !== undefined) {
      await api.deps.db
        .updateTable('emailSends')
        .set({ sentAt: new Date(Date.now() - options.sentAgoMs) })
        .where('id', '=', id)
        .execute();
    }
    const links = await api.deps.db.selectFrom('trackedLinks').selectAll().where('emailSendId', '=', id).orderBy('originalUrl').execute();
    return { id, to, userId, links };
  }

  /** A journey that moves on when the user clicks or opens (its exitOn rules), with a live state waiting for it. */
  async function waitingJourney(userId: string, email: string) {
    const journey = defineJourney({
      id: `test-machine-${randomUUID().slice(0, 8)}`,
      name: 'Waits for a click or an open',
      description: 'test journey',
      trigger: { event: 'test.never' },
      exitOn: [{ event: 'email.link_clicked' }, { event: 'email.opened' }],
      async run() {},
    });
    registerTestJourneys(api, [journey]);
    registerTestJourneys(proxied, [journey]);
    const state = await api.deps.db
      .insertInto('journeyStates')
      .values({
        journeyId: journey.id,
        userId,
        userEmail: email,
        status: 'waiting',
        workflowId: `journey:${journey.id}:${userId}:${randomUUID()}`,
        currentNodeId: 'wait',
        context: JSON.stringify({ waitingFor: 'email.link_clicked' }),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { journey, stateId: state.id };
  }

  /** The signed webhooks recorded for the send: they wait for a person. */
  const outbound = async (emailId: string) =>
    (
      await api.deps.db
        .selectFrom('outboundEvents')
        .select('event')
        .where(sql<string>`payload ->> 'emailId'`, '=', emailId)
        .orderBy('createdAt')
        .execute()
    ).map((row) => row.event);
  const sendRow = (id: string) => api.deps.db.selectFrom('emailSends').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const stateStatus = async (id: string) =>
    (await api.deps.db.selectFrom('journeyStates').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
  const clicksOf = (emailSendId: string) =>
    api.deps.db
      .selectFrom('linkClicks')
      .innerJoin('trackedLinks', 'trackedLinks.id', 'linkClicks.trackedLinkId')
      .select(['linkClicks.trackedLinkId', 'linkClicks.machine', 'linkClicks.machineReason', 'trackedLinks.honeypot'])
      .where('trackedLinks.emailSendId', '=', emailSendId)
      .orderBy('linkClicks.clickedAt')
      .execute();
  /** Every tracking event of the user, once both apis have pushed what they recorded. */
  async function trackingEvents(userId: string, count: number) {
    for (const each of [api, proxied]) {
      await each.deps.tracking.settled();
      await each.deps.trackingEvents.drain();
    }
    return waitFor(
      async () => {
        const rows = await api.deps.db
          .selectFrom('events')
          .select(['event', 'properties'])
          .where('userId', '=', userId)
          .where('event', 'in', ['email.link_clicked', 'email.opened'])
          .orderBy('occurredAt')
          .execute();
        return rows.length >= count ? rows : undefined;
      },
      { what: `${count} tracking events` },
    );
  }

  /** After the machine's hits: a person clicks, and the click counts, moves the journey and reaches the pipeline as a person's. */
  async function personClicks(email: Awaited<ReturnType<typeof sentEmail>>, stateId: string, eventsBefore: number) {
    expect(await stateStatus(stateId)).toBe('waiting');
    expect(await outbound(email.id)).not.toContain('email.clicked');
    const response = await api.request('GET', `/v1/t/c/${email.links[0]!.id}`, { headers: { 'user-agent': BROWSER } });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(email.links[0]!.originalUrl);
    const events = await trackingEvents(email.userId, eventsBefore + 1);
    expect(events.at(-1)!.properties).toMatchObject({ machine: false, machineReason: null });
    expect((await sendRow(email.id)).humanClickedAt).toBeInstanceOf(Date);
    await waitFor(async () => ((await stateStatus(stateId)) === 'exited' ? true : undefined), { what: 'the journey moved by the person’s click' });
    const detail = await api.request('GET', `/v1/admin/emails/${email.id}`, { token: ADMIN });
    expect(detail.body.email.clicks.human).toBe(1);
    expect((await outbound(email.id)).filter((event) => event === 'email.clicked')).toEqual(['email.clicked']);
  }

  it('a HEAD to a tracked link still redirects, and is a machine click (head_request)', async () => {
    const email = await sentEmail({ sentAgoMs: 3_600_000 });
    const { stateId } = await waitingJourney(email.userId, email.to);
    const link = email.links[0]!;
    const head = await fetch(`${api.url}/v1/t/c/${link.id}`, { method: 'HEAD', redirect: 'manual', headers: { 'user-agent': BROWSER } });
    expect(head.status).toBe(302);
    expect(head.headers.get('location')).toBe(link.originalUrl);

    expect(await clicksOf(email.id)).toEqual([{ trackedLinkId: link.id, machine: true, machineReason: 'head_request', honeypot: false }]);
    const row = await sendRow(email.id);
    expect(row.clickedAt).toBeInstanceOf(Date);
    expect(row.humanClickedAt).toBeNull();
    const [event] = await trackingEvents(email.userId, 1);
    expect(event!.properties).toMatchObject({ linkId: link.id, machine: true, machineReason: 'head_request' });
    await personClicks(email, stateId, 1);
  });

  it('a known scanner’s user agent is a machine click (scanner_user_agent)', async () => {
    const email = await sentEmail({ sentAgoMs: 3_600_000 });
    const { stateId } = await waitingJourney(email.userId, email.to);
    const scanner = await api.request('GET', `/v1/t/c/${email.links[1]!.id}`, {
      headers: { 'user-agent': 'Mozilla/5.0 (compatible; Barracuda Sentinel (EE))' },
    });
    expect(scanner.status).toBe(302);

    expect(await clicksOf(email.id)).toEqual([{ trackedLinkId: email.links[1]!.id, machine: true, machineReason: 'scanner_user_agent', honeypot: false }]);
    expect((await sendRow(email.id)).humanClickedAt).toBeNull();
    const [event] = await trackingEvents(email.userId, 1);
    expect(event!.properties).toMatchObject({ machine: true, machineReason: 'scanner_user_agent' });
    await personClicks(email, stateId, 1);
  });

  it('Apple’s mail proxy fetching the pixel is a machine open (apple_mpp), read from X-Forwarded-For only with TRUST_PROXY=true', async () => {
    const email = await sentEmail({ sentAgoMs: 3_600_000 });
    const { stateId } = await waitingJourney(email.userId, email.to);
    const apple = { 'x-forwarded-for': '17.58.101.7', 'user-agent': 'Mozilla/5.0' };
    const pixel = await fetch(`${proxied.url}/v1/t/o/${email.id}`, { headers: apple });
    expect(pixel.status).toBe(200);
    expect(Buffer.from(await pixel.arrayBuffer()).length).toBe(42);

    const row = await sendRow(email.id);
    expect(row.openedAt).toBeInstanceOf(Date);
    expect(row.humanOpenedAt).toBeNull();
    const opens = () =>
      api.deps.db.selectFrom('emailOpens').select(['machine', 'machineReason', 'ipAddress']).where('emailSendId', '=', email.id).orderBy('openedAt').execute();
    expect(await opens()).toEqual([{ machine: true, machineReason: 'apple_mpp', ipAddress: '17.58.101.7' }]);
    const [event] = await trackingEvents(email.userId, 1);
    expect(event).toMatchObject({ event: 'email.opened', properties: { emailSendId: email.id, machine: true, machineReason: 'apple_mpp' } });
    expect(await stateStatus(stateId)).toBe('waiting');
    expect(await outbound(email.id)).not.toContain('email.opened');

    // the same header on an api that does not trust proxies names nobody: the open is judged on
    // the connection's own address (a person here), so a forged header cannot fake Apple's proxy
    await fetch(`${api.url}/v1/t/o/${email.id}`, { headers: apple });
    expect((await opens()).map((open) => open.machineReason)).toEqual(['apple_mpp', null]);
    expect((await sendRow(email.id)).humanOpenedAt).toBeInstanceOf(Date);
    const events = await trackingEvents(email.userId, 2);
    expect(events[1]).toMatchObject({ event: 'email.opened', properties: { machine: false, machineReason: null } });
    await waitFor(async () => ((await stateStatus(stateId)) === 'exited' ? true : undefined), { what: 'the journey moved by the person’s open' });
    const detail = await api.request('GET', `/v1/admin/emails/${email.id}`, { token: ADMIN });
    expect(detail.body.email.opens).toEqual({ human: 1, machine: 1 });
    expect(await outbound(email.id)).toEqual(['email.opened']);
    expect(detail.body.recentOpens.map((open: { machineReason: string | null }) => open.machineReason)).toEqual([null, 'apple_mpp']);
  });

  it('two links of one email clicked within a second of the send are machine clicks (too_fast)', async () => {
    const email = await sentEmail();
    const { stateId } = await waitingJourney(email.userId, email.to);
    // a scanner following every link the moment the message lands, as a browser would
    const responses = await Promise.all(email.links.map((link) => api.request('GET', `/v1/t/c/${link.id}`, { headers: { 'user-agent': BROWSER } })));
    expect(responses.map((response) => response.status)).toEqual([302, 302]);

    const events = await trackingEvents(email.userId, 2);
    expect(events.map((event) => event.properties)).toEqual([
      expect.objectContaining({ machine: true, machineReason: 'too_fast' }),
      expect.objectContaining({ machine: true, machineReason: 'too_fast' }),
    ]);
    expect((await clicksOf(email.id)).map((click) => click.machineReason)).toEqual(['too_fast', 'too_fast']);
    const row = await sendRow(email.id);
    expect(row.clickedAt).toBeInstanceOf(Date);
    expect(row.humanClickedAt).toBeNull();

    // later, outside the window, the person reads the email and clicks
    await api.deps.db
      .updateTable('emailSends')
      .set({ sentAt: new Date(Date.now() - 3_600_000) })
      .where('id', '=', email.id)
      .execute();
    await personClicks(email, stateId, 2);
  });

  it('a click on the invisible honeypot link the rewriter adds is a machine click (honeypot), and still redirects', async () => {
    const email = await sentEmail({ sentAgoMs: 3_600_000 });
    const { stateId } = await waitingJourney(email.userId, email.to);
    const [delivered] = await emailsTo(email.to);
    const honeypot = load(delivered!.body.html!)('a[aria-hidden="true"]').attr('href');
    expect(honeypot).toBe(`${PUBLIC_URL}/v1/t/c/${email.id}`);

    const response = await api.request('GET', new URL(honeypot!).pathname, { headers: { 'user-agent': BROWSER } });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(PUBLIC_URL);
    expect(await clicksOf(email.id)).toEqual([{ trackedLinkId: email.id, machine: true, machineReason: 'honeypot', honeypot: true }]);
    expect((await sendRow(email.id)).humanClickedAt).toBeNull();
    const [event] = await trackingEvents(email.userId, 1);
    expect(event!.properties).toMatchObject({ machine: true, machineReason: 'honeypot' });
    await personClicks(email, stateId, 1);
  });
});
