import { describe, expect, it } from 'vitest';
import { DEFAULT_REPUTATION_THRESHOLDS } from '@waymark/journey';
import { breakerVerdict, nextBreaker, type BreakerMemory } from './breaker-verdict';
import { mailboxProviderOf } from '../delivery/mailbox-provider';
import { reputationHold, sendRateTokens } from './reputation-hold';

const verdict = (sends: number, bounces: number, complaints: number) => breakerVerdict({ sends, bounces, complaints }, DEFAULT_REPUTATION_THRESHOLDS, 500);
const HOUR = 3_600_000;
const at = (hours: number) => new Date(Date.UTC(2026, 0, 1) + hours * HOUR);

describe('breakerVerdict', () => {
  it('slows at 0.1 % complaints or 4 % bounces, pauses at 0.3 % or 8 %', () => {
    expect(verdict(1000, 39, 0)).toBe('ok');
    expect(verdict(1000, 40, 0)).toBe('slowed');
    expect(verdict(1000, 0, 1)).toBe('slowed');
    expect(verdict(1000, 80, 0)).toBe('paused');
    expect(verdict(1000, 0, 3)).toBe('paused');
  });
  it('judges nothing under REPUTATION_MIN_SENDS', () => {
    expect(verdict(499, 400, 100)).toBe('ok');
  });
});

describe('nextBreaker', () => {
  const paused: BreakerMemory = { state: 'paused', since: at(0), clearSince: null };
  it('trips at once to a worse state', () => {
    expect(nextBreaker({ state: 'ok', since: null, clearSince: null }, 'slowed', at(1), 6 * HOUR)).toEqual({ state: 'slowed', since: at(1), clearSince: null });
    expect(nextBreaker({ state: 'slowed', since: at(0), clearSince: null }, 'paused', at(1), 6 * HOUR)).toEqual({
      state: 'paused',
      since: at(1),
      clearSince: null,
    });
  });
  it('resumes by itself only after the rates stay under the slow thresholds for the cooldown', () => {
    const clearing = nextBreaker(paused, 'ok', at(1), 6 * HOUR);
    expect(clearing).toEqual({ state: 'paused', since: at(0), clearSince: at(1) });
    expect(nextBreaker(clearing, 'ok', at(6.5), 6 * HOUR)).toBe(clearing);
    expect(nextBreaker(clearing, 'ok', at(7), 6 * HOUR)).toEqual({ state: 'ok', since: at(7), clearSince: null });
  });
  it('a paused breaker in the slow band stays paused, and its cooldown starts again', () => {
    const clearing = { ...paused, clearSince: at(1) };
    expect(nextBreaker(clearing, 'slowed', at(2), 6 * HOUR)).toEqual(paused);
    expect(nextBreaker(paused, 'slowed', at(2), 6 * HOUR)).toBe(paused);
  });
});

describe('mailboxProviderOf, reputationHold and sendRateTokens', () => {
  it('tells the providers apart by domain', () => {
    expect(['a@gmail.com', 'b@Yahoo.com', 'c@hotmail.com', 'd@icloud.com', 'e@example.com', 'f@simulator.amazonses.com'].map(mailboxProviderOf)).toEqual([
      'gmail',
      'yahoo',
      'microsoft',
      'apple',
      'other',
      'other',
    ]);
  });
  it('holds marketing mail to a paused provider, never mail the person asked for', () => {
    const snapshot = { tripped: new Map([['marketing/gmail', 'paused'] as const, ['marketing/yahoo', 'slowed'] as const]) };
    expect(reputationHold(snapshot, { required: false, to: 'a@gmail.com' })).toEqual({ held: true, reason: 'reputation', provider: 'gmail' });
    expect(reputationHold(snapshot, { required: true, to: 'a@gmail.com' })).toEqual({ held: false });
    // slowed: sent, at half the rate
    expect(reputationHold(snapshot, { required: false, to: 'a@yahoo.com' })).toEqual({ held: false });
  });
  it('makes a send of a tripped group and provider worth two tokens of the send rate, any other one', () => {
    const snapshot = { tripped: new Map([['marketing/other', 'slowed'] as const, ['transactional/gmail', 'paused'] as const]) };
    const tokens = (required: boolean, to: string) => sendRateTokens(snapshot, { required, to });
    expect([tokens(false, 'a@example.com'), tokens(true, 'a@example.com')]).toEqual([2, 1]);
    // transactional mail flows through a paused breaker, slowed
    expect([tokens(true, 'a@gmail.com'), tokens(false, 'a@gmail.com'), tokens(false, 'a@yahoo.com')]).toEqual([2, 1, 1]);
    expect(sendRateTokens({ tripped: new Map() }, { required: false, to: 'a@example.com' })).toBe(1);
  });
});
