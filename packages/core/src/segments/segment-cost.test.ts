import { describe, expect, it } from 'vitest';
import { costliestLeaf } from './segment-cost';
import { parseSegmentConditions } from './segment-conditions';

describe('costliestLeaf', () => {
  it('names the first leaf of the dearest kind, with its path', () => {
    const tree = parseSegmentConditions({
      all: [
        { type: 'lastSeen', within: '30d' },
        { any: [{ type: 'property', property: 'plan', operator: 'eq', value: 'pro' }, { not: { type: 'email', action: 'opened', within: '7d' } }] },
        { type: 'list', list: 'vip' },
      ],
    });
    expect(costliestLeaf(tree)).toEqual({ kind: 'email', path: 'conditions.all[1].any[1].not' });
    expect(costliestLeaf(parseSegmentConditions({ all: [] }))).toBeUndefined();
  });
});

describe('parseSegmentConditions: values across in lists', () => {
  const values = (count: number) => Array.from({ length: count }, (_, index) => `v${index}`);
  it('allows 2,000 and refuses the 2,001st, naming the path where the total passes', () => {
    const leaf = (count: number) => ({ type: 'property', property: 'plan', operator: 'in', value: values(count) });
    expect(() => parseSegmentConditions({ all: [leaf(500), leaf(500), leaf(500), leaf(500)] })).not.toThrow();
    const event = {
      type: 'event',
      event: 'paid',
      within: '30d',
      where: [{ property: 'sku', operator: 'in', value: values(1) }].map((where) => ({ type: 'property', ...where })),
    };
    expect(() => parseSegmentConditions({ all: [leaf(500), leaf(500), leaf(500), leaf(500), event] })).toThrow(
      "conditions.all[4].where[0].value: a segment has at most 2000 values across its 'in' lists",
    );
  });
});
