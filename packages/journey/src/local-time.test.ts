import { describe, expect, it } from 'vitest';
import { defineJourney } from './define-journey';
import { formatLocal, isTimeZone, nextLocalTime, quietHoursEnd } from './local-time';

describe('local time', () => {
  it('knows IANA names and refuses the rest', () => {
    expect(['Europe/Paris', 'UTC', 'America/Argentina/Buenos_Aires', 'Asia/Kolkata'].every(isTimeZone)).toBe(true);
    expect([' Europe/Paris', 'Mars/Olympus', '+01:00', '', 42, null].some(isTimeZone)).toBe(false);
  });

  it('moves a time the clocks skip on by the gap, and takes the first of a time they repeat', () => {
    // Paris 2026-03-29: 02:00 → 03:00; 2026-10-25: 03:00 → 02:00
    expect(formatLocal(nextLocalTime(Date.parse('2026-03-28T23:00:00Z'), 'Europe/Paris', '02:30'), 'Europe/Paris')).toBe('2026-03-29T03:30+02:00');
    expect(new Date(nextLocalTime(Date.parse('2026-10-24T23:00:00Z'), 'Europe/Paris', '02:30')).toISOString()).toBe('2026-10-25T00:30:00.000Z');
  });

  it('a same-day window holds only inside it', () => {
    const lunch = { from: '12:00', to: '14:00' } as const;
    expect(quietHoursEnd(Date.parse('2026-12-01T11:59:00Z'), 'UTC', lunch)).toBeUndefined();
    expect(quietHoursEnd(Date.parse('2026-12-01T12:00:00Z'), 'UTC', lunch)).toBe(Date.parse('2026-12-01T14:00:00Z'));
    expect(quietHoursEnd(Date.parse('2026-12-01T14:00:00Z'), 'UTC', lunch)).toBeUndefined();
  });

  it('a journey with unreadable quiet hours stops start-up', () => {
    const journey = { id: 'j', name: 'J', description: '', trigger: { event: 'e' }, run: async () => {} };
    expect(() => defineJourney({ ...journey, quietHours: { from: '9pm', to: '08:00' } as never })).toThrow(/quietHours.from must be a 24-hour time/);
    expect(() => defineJourney({ ...journey, quietHours: { from: '08:00', to: '08:00' } })).toThrow(/must differ/);
  });
});
