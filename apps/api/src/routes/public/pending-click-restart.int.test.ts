import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEmail } from '@waymark/core/emails/send-email';
import { eventually } from '../../../../../test/eventually';
import { uniqueAddress } from '../../../../../test/email-emulator';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';

/**
 * A click inside the machine-click window waits a second for its verdict (docs/email.md, "Machine
 * opens and clicks"). That second is kept in the click's row, so an api that stops within it
 * leaves the click to the next api, which settles it and sends its event.
 */
describe('a click left pending by a stopped api', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api?.close());

  async function clickedEmail() {
    const to = uniqueAddress('pending-click');
    const sent = await sendEmail(api.deps.email, { templateKey: 'welcome-tips', to, userId: `u-${randomUUID()}`, idempotencyKey: randomUUID() });
    if (sent.status !== 'sent') throw new Error(`send ${sent.status}`);
    const [link] = await api.deps.db.selectFrom('trackedLinks').selectAll().where('emailSendId', '=', sent.emailSendId).where('honeypot', '=', false).execute();
    // a person's click, just after the send: inside the window, so pending
    const followed = await api.request('GET', `/v1/t/c/${link!.id}`, { headers: { 'user-agent': BROWSER } });
    expect(followed.status).toBe(302);
    const [click] = await api.deps.db.selectFrom('linkClicks').selectAll().where('trackedLinkId', '=', link!.id).execute();
    return { emailSendId: sent.emailSendId, click: click! };
  }

  const clickEvents = (clickId: string) =>
    api.deps.db.selectFrom('events').select(['event', 'properties']).where('idempotencyKey', '=', `email.link_clicked:${clickId}`).execute();

  it('the click is pending in its row until settled, then a person’s, with one event', async () => {
    const { emailSendId, click } = await clickedEmail();
    expect(click).toMatchObject({ pending: true, machine: false });
    await api.deps.tracking.settled();
    const settled = await api.deps.db.selectFrom('linkClicks').selectAll().where('id', '=', click.id).executeTakeFirstOrThrow();
    expect(settled).toMatchObject({ pending: false, machine: false, machineReason: null });
    const events = await eventually(
      () => clickEvents(click.id),
      (rows) => rows.length === 1,
      { what: 'the click event' },
    );
    expect(events[0]!.properties).toMatchObject({ emailSendId, machine: false });
  });

  it('an api restart settles what the stopped one left pending, and sends its event once', async () => {
    const { emailSendId, click } = await clickedEmail();
    // what a killed api leaves behind: the click written, its timer gone, the row still pending
    // (played here by putting the row back as it was and moving it out of every live timer's reach)
    await api.deps.tracking.settled();
    await api.deps.db.deleteFrom('events').where('idempotencyKey', '=', `email.link_clicked:${click.id}`).execute();
    await api.deps.db
      .updateTable('linkClicks')
      .set({ pending: true, clickedAt: new Date(Date.now() - 60_000) })
      .where('id', '=', click.id)
      .execute();
    await api.deps.db.updateTable('emailSends').set({ humanClickedAt: null }).where('id', '=', emailSendId).execute();

    await api.close();
    api = await startTestApi();
    // the new api's first sweep runs at its start
    await api.deps.tracking.settled();
    const settled = await api.deps.db.selectFrom('linkClicks').selectAll().where('id', '=', click.id).executeTakeFirstOrThrow();
    expect(settled).toMatchObject({ pending: false, machine: false });
    const send = await api.deps.db.selectFrom('emailSends').select('humanClickedAt').where('id', '=', emailSendId).executeTakeFirstOrThrow();
    expect(send.humanClickedAt).toEqual(settled.clickedAt);
    const events = await eventually(
      () => clickEvents(click.id),
      (rows) => rows.length === 1,
      { what: 'the click event from the new api' },
    );
    expect(events[0]!.properties).toMatchObject({ emailSendId, machine: false, linkId: click.trackedLinkId });
    // a second sweep finds nothing left: no second event
    await api.deps.tracking.sweep();
    await api.deps.tracking.settled();
    expect(await clickEvents(click.id)).toHaveLength(1);
  });
});
