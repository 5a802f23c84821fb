import { describe, expect, it } from 'vitest';
import { deepMergeProperties } from './deep-merge';

describe('deepMergeProperties', () => {
  it('merges nested objects key by key and keeps untouched keys', () => {
    expect(deepMergeProperties({ plan: 'free', address: { city: 'Oslo', zip: '0150' } }, { address: { city: 'Bergen' } })).toEqual({
      plan: 'free',
      address: { city: 'Bergen', zip: '0150' },
    });
  });

  it('removes a key given null, at any depth', () => {
    expect(deepMergeProperties({ a: 1, b: { c: 2, d: 3 } }, { a: null, b: { c: null } })).toEqual({ b: { d: 3 } });
  });

  it('replaces arrays and scalars, and an object replaces a scalar', () => {
    expect(deepMergeProperties({ tags: ['a', 'b'], n: 1, o: 'x' }, { tags: ['c'], n: 2, o: { y: true } })).toEqual({
      tags: ['c'],
      n: 2,
      o: { y: true },
    });
  });

  it('does not mutate its inputs', () => {
    const target = { a: { b: 1 } };
    deepMergeProperties(target, { a: { b: 2 } });
    expect(target).toEqual({ a: { b: 1 } });
  });
});
