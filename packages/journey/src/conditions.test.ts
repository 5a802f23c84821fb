import { describe, expect, it } from 'vitest';
import { evaluateConditions, type PropertyCondition } from './conditions';
import { parseDuration, parsePositiveDuration } from './duration';
import { defineJourney } from './define-journey';

const c = (operator: PropertyCondition['operator'], value: unknown, property = 'x'): PropertyCondition => ({ type: 'property', property, operator, value });

describe('PropertyCondition operators', () => {
  it.each([
    [c('eq', 'pro'), { x: 'pro' }, true],
    [c('eq', 42), { x: '42' }, true],
    [c('eq', 'pro'), { x: 'free' }, false],
    [c('neq', 'pro'), { x: 'free' }, true],
    [c('gt', 10), { x: 11 }, true],
    [c('gt', 10), { x: 10 }, false],
    [c('gte', 14), { x: '14' }, true],
    [c('lt', '2024-02-01T00:00:00Z'), { x: '2024-01-01T00:00:00Z' }, true],
    [c('lte', 3), { x: 4 }, false],
    [c('gt', 1), { x: null }, false],
    [c('contains', 'ACME'), { x: 'ops@acme.io' }, true],
    [c('contains', 'a'), { x: ['a', 'b'] }, true],
    [c('exists', undefined), { x: 0 }, true],
    [c('exists', false), {}, true],
    [c('exists', true), { x: null }, false],
    [c('in', ['pro', 'team']), { x: 'team' }, true],
    [c('in', ['pro', 'team']), { x: 'free' }, false],
    [c('eq', 'eu', 'company.region'), { company: { region: 'eu' } }, true],
  ])('%o on %o → %s', (condition, properties, expected) => {
    expect(evaluateConditions([condition], properties)).toBe(expected);
  });

  it('needs every condition; none means pass', () => {
    expect(evaluateConditions(undefined, {})).toBe(true);
    expect(evaluateConditions([c('eq', 1), c('eq', 2, 'y')], { x: 1, y: 3 })).toBe(false);
  });
});

describe('durations', () => {
  it.each([
    ['2 days', 172_800_000],
    ['3h', 10_800_000],
    ['1 day 12 hours', 129_600_000],
    ['90 minutes', 5_400_000],
    // the compact spellings caps and segments took before they shared this grammar
    ['30d', 2_592_000_000],
    ['90m', 5_400_000],
    ['2w', 1_209_600_000],
    ['0h', 0],
    ['1.5h', 5_400_000],
    ['30D', 2_592_000_000],
    ['1h, 30m', 5_400_000],
    [1500, 1500],
  ])('%s → %i ms', (input, ms) => expect(parseDuration(input)).toBe(ms));
  it.each(['2 dayz', 'soon', '', '3 days banana', 'a month', '30', 'd', '-1d'])('rejects %s', (input) => expect(parseDuration(input)).toBeUndefined());
  it('takes only durations longer than 0 where a window is meant', () => {
    expect(parsePositiveDuration('0d')).toBeUndefined();
    expect(parsePositiveDuration('12h')).toBe(43_200_000);
  });
});

describe('defineJourney', () => {
  it('stops start-up with a clear message for an invalid definition', () => {
    expect(() =>
      defineJourney({ id: 'Bad Id', name: '', description: 'x', trigger: { event: '', where: [c('in', 'notarray')] }, run: async () => undefined }),
    ).toThrow(/Invalid journey 'Bad Id':[\s\S]*id must be[\s\S]*name must be[\s\S]*trigger.event[\s\S]*needs an array/);
  });
  it('fills defaults', () => {
    const journey = defineJourney({ id: 'ok', name: 'Ok', description: '', trigger: { event: 'e' }, run: async () => undefined });
    expect(journey).toMatchObject({ enabled: true, entryLimit: 'unlimited', exitOn: [] });
  });
});
