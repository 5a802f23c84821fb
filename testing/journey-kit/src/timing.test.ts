import { defineJourney, type Journey, type QuietHours } from '@waymark/journey';
import { describe, expect, it } from 'vitest';
import { testJourney } from './test-journey';

const quietHours: QuietHours = { from: '21:00', to: '08:00' };

/** A test journey triggered by user.signed_up. */
const journeyOf = (id: string, run: Journey['run'], options: { quietHours?: QuietHours } = {}) =>
  defineJourney({ id, name: id, description: id, trigger: { event: 'user.signed_up' }, ...options, run });

const data = { firstName: 'Ada' };

// one email, inside quiet hours when the trigger comes late
const welcomeAtOnce = journeyOf(
  'quiet-welcome',
  async (ctx) => {
    await ctx.sendEmail('welcome', { data });
  },
  { quietHours },
);

// two emails at 09:00 on the next Mondays and Wednesdays
const weeklyDigest = journeyOf('weekday-digest', async (ctx) => {
  for (const node of ['first', 'second']) {
    await ctx.sleepUntilLocal('09:00', { weekdays: ['mon', 'wed'] });
    await ctx.sendEmail('welcome', { data, node });
  }
});

const nextMorning = journeyOf('next-morning', async (ctx) => {
  await ctx.sleepUntilLocal('09:00');
  await ctx.sendEmail('welcome', { data });
});

describe('quiet hours in the recipient time zone', () => {
  it.each([
    // Europe/Paris: clocks go forward on 2026-03-29 and back on 2026-10-25
    ['Europe/Paris', '2026-03-28T22:00:00Z', '2026-03-29T08:00+02:00', '2026-03-29T06:00:00.000Z'],
    ['Europe/Paris', '2026-10-24T19:30:00Z', '2026-10-25T08:00+01:00', '2026-10-25T07:00:00.000Z'],
    // America/New_York: forward on 2026-03-08, back on 2026-11-01
    ['America/New_York', '2026-03-08T04:00:00Z', '2026-03-08T08:00-04:00', '2026-03-08T12:00:00.000Z'],
    ['America/New_York', '2026-11-01T02:00:00Z', '2026-11-01T08:00-05:00', '2026-11-01T13:00:00.000Z'],
  ])('%s: a send at %s is held until %s, across the DST change', async (timeZone, start, localUntil, sentAt) => {
    const t = await testJourney(welcomeAtOnce, { startAt: new Date(start), fakes: { timeZone } });
    expect(t.sent).toEqual([]);
    expect(t.status).toBe('waiting');
    expect(t.holds.map((hold) => [hold.reason, hold.until, hold.timeZone])).toEqual([['quiet_hours', localUntil, timeZone]]);
    await t.advance(Date.parse(sentAt) - Date.parse(start) - 1);
    expect(t.sent).toEqual([]);
    await t.advance(1);
    expect(t.sent.map((email) => email.at.toISOString())).toEqual([sentAt]);
    expect(t.status).toBe('completed');
    expect(t.logs.map((log) => log.action)).toEqual(['entered', 'held', 'resumed', 'email_sent', 'completed']);
  });

  it('sends at once outside the window, and the zone decides what is outside', async () => {
    // 21:30 UTC is 22:30 in Paris (quiet) but 16:30 in New York
    const start = new Date('2026-12-01T21:30:00Z');
    const paris = await testJourney(welcomeAtOnce, { startAt: start, fakes: { timeZone: 'Europe/Paris' } });
    const newYork = await testJourney(welcomeAtOnce, { startAt: start, fakes: { timeZone: 'America/New_York' } });
    expect(paris.holds.map((hold) => hold.until)).toEqual(['2026-12-02T08:00+01:00']);
    expect(newYork.holds).toEqual([]);
    expect(newYork.sent.map((email) => email.at.toISOString())).toEqual([start.toISOString()]);
  });

  it('without a zone the recipient is in UTC (DEFAULT_TIMEZONE)', async () => {
    const t = await testJourney(welcomeAtOnce, { startAt: new Date('2026-12-01T07:00:00Z') });
    expect(t.holds.map((hold) => hold.until)).toEqual(['2026-12-01T08:00+00:00']);
  });
});

describe('sleepUntilLocal', () => {
  it('waits for 09:00 on the listed weekdays of the recipient', async () => {
    // Friday 2026-11-27, 10:00 in Paris
    const t = await testJourney(weeklyDigest, { startAt: new Date('2026-11-27T09:00:00Z'), fakes: { timeZone: 'Europe/Paris' } });
    expect(t.logs.at(-1)).toMatchObject({ action: 'waiting', detail: { localUntil: '2026-11-30T09:00+01:00', timeZone: 'Europe/Paris' } });
    await t.advance('7 days');
    expect(t.sent.map((email) => [email.node, email.at.toISOString()])).toEqual([
      ['first', '2026-11-30T08:00:00.000Z'], // Monday 09:00 Paris
      ['second', '2026-12-02T08:00:00.000Z'], // Wednesday 09:00 Paris
    ]);
  });

  it('keeps 09:00 local across a DST change (a 23-hour night)', async () => {
    // Saturday 2026-03-28, 10:00 in Paris; the next 09:00 is after the clocks go forward
    const t = await testJourney(nextMorning, { startAt: new Date('2026-03-28T09:00:00Z'), fakes: { timeZone: 'Europe/Paris' } });
    await t.advance('1 day');
    expect(t.sent.map((email) => email.at.toISOString())).toEqual(['2026-03-29T07:00:00.000Z']);
  });

  it('at that very time, waits for the next one', async () => {
    const t = await testJourney(nextMorning, { startAt: new Date('2026-11-27T14:00:00Z'), fakes: { timeZone: 'America/New_York' } });
    // 09:00 in New York: the next 09:00 is tomorrow's
    expect(t.sent).toEqual([]);
    await t.advance('1 day');
    expect(t.sent.map((email) => email.at.toISOString())).toEqual(['2026-11-28T14:00:00.000Z']);
  });
});
