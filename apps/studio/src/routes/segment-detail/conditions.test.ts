import { describe, expect, it } from 'vitest';
import { additions, kindOf, parseConditions, parseWithin, problemOf, valueOf, valueText, type Condition } from './conditions';

describe('the segment builder’s condition rules', () => {
  it('accepts a complete tree of every leaf and group', () => {
    const tree: Condition = {
      all: [
        { type: 'property', property: 'plan', operator: 'in', value: ['pro', 'team'] },
        { type: 'list', list: 'newsletter' },
        {
          type: 'event',
          event: 'report.exported',
          within: '30d',
          minCount: 2,
          where: [{ type: 'property', property: 'format', operator: 'eq', value: 'pdf' }],
        },
        { not: { type: 'email', action: 'opened', within: '14d' } },
        {
          any: [
            { type: 'lastSeen', within: '2w' },
            { type: 'property', property: 'vip', operator: 'exists', value: true },
          ],
        },
      ],
    };
    expect(problemOf(tree)).toBeUndefined();
  });

  it('names the path of the first blank the way the API does', () => {
    expect(problemOf({ all: [{ type: 'list', list: 'a' }, additions.property.blank()] })).toBe('conditions.all[1]: name the property');
    expect(problemOf({ any: [{ not: additions.event.blank() }] })).toBe('conditions.any[0].not: name the event');
    expect(problemOf({ type: 'property', property: 'plan', operator: 'in', value: ['pro', ''] })).toBe('conditions: list the values, separated by commas');
    expect(problemOf({ type: 'lastSeen', within: '0d' })).toMatch(/^conditions\.within: a duration longer than 0, such as '30d'/);
    expect(problemOf({ type: 'lastSeen', within: '30 days' })).toBeUndefined();
    expect(problemOf({ type: 'lastSeen', within: 'a month' })).toMatch(/^conditions\.within: /);
    expect(problemOf({ type: 'event', event: 'x', within: '1d', where: [{ type: 'property', property: '', operator: 'eq', value: 1 }] })).toBe(
      'conditions.where[0]: name the property',
    );
    expect(problemOf({ type: 'property', property: 'vip', operator: 'exists' })).toBeUndefined();
  });

  it('refuses a sixth level and a fifty-first leaf', () => {
    const five: Condition = { not: { not: { not: { not: { type: 'lastSeen', within: '1d' } } } } };
    expect(problemOf(five)).toBeUndefined();
    expect(problemOf({ not: five })).toBe('conditions.not.not.not.not.not: conditions nest at most 5 levels deep');
    const many: Condition = { any: Array.from({ length: 51 }, () => ({ type: 'lastSeen' as const, within: '1d' })) };
    expect(problemOf(many)).toBe('conditions: at most 50 conditions, this has 51');
  });

  it('tells groups, leaves and strangers apart', () => {
    expect(kindOf({ all: [] })).toBe('all');
    expect(kindOf({ not: { any: [] } })).toBe('not');
    expect(kindOf({ type: 'email', action: 'clicked', within: '1d' })).toBe('email');
    expect(kindOf({ type: 'weather' } as unknown as Condition)).toBe('unknown');
    expect(problemOf({ all: [{ type: 'weather' } as unknown as Condition] })).toMatch(/^conditions\.all\[0\]: not a condition/);
  });

  it('reads windows and values as typed', () => {
    expect(parseWithin('12h')).toEqual({ amount: '12', unit: 'h' });
    expect(parseWithin('d')).toEqual({ amount: '', unit: 'd' });
    expect(parseWithin('2 weeks')).toEqual({ amount: '2', unit: 'w' });
    expect(parseWithin('36 hours')).toEqual({ amount: '36', unit: 'h' });
    expect(parseWithin('1.5h')).toEqual({ amount: '90', unit: 'm' });
    expect(parseWithin('soon')).toEqual({ amount: '30', unit: 'd' });
    expect(valueOf('in', 'pro, team')).toEqual(['pro', 'team']);
    expect(valueOf('exists', 'false')).toBe(false);
    expect(valueOf('gt', '100')).toBe('100');
    expect(valueText({ type: 'property', property: 'plan', operator: 'in', value: ['pro', 'team'] })).toBe('pro, team');
    expect(valueText({ type: 'property', property: 'seats', operator: 'gt', value: 3 })).toBe('3');
  });

  it('loads JSON objects only', () => {
    expect(parseConditions('{"all": []}')).toEqual({ conditions: { all: [] } });
    expect(parseConditions('[1]')).toEqual({ problem: 'The conditions must be a JSON object.' });
    expect(parseConditions('{')).toMatchObject({ problem: expect.stringMatching(/^Not valid JSON/) });
  });
});
