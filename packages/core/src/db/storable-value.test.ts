import { describe, expect, it } from 'vitest';
import { findUnstorable } from './storable-value';

describe('findUnstorable', () => {
  it('passes ordinary JSON, dates and buffers', () => {
    expect(findUnstorable({ a: 'x', b: [1, 2.5, null, true, { c: 'd' }], when: new Date(), raw: Buffer.from('a\u0000') }, 'body')).toBeUndefined();
  });

  it('names the first NUL in a value or a key, and non-finite numbers', () => {
    expect(findUnstorable({ a: { b: ['ok', 'x\u0000'] } }, 'body')).toBe('body.a.b[1] must not contain NUL (\\u0000) characters');
    expect(findUnstorable({ 'my key': { 'k\u0000': 1 } }, 'body')).toBe('body["my key"]["k\\u0000"]: object keys must not contain NUL (\\u0000) characters');
    expect(findUnstorable({ n: Number.POSITIVE_INFINITY }, 'body')).toBe('body.n must be a finite number');
    expect(findUnstorable('a\u0000', 'query.search')).toBe('query.search must not contain NUL (\\u0000) characters');
  });

  it('copes with deep nesting without recursion', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 20_000; i += 1) deep = [deep];
    expect(findUnstorable(deep, 'body')).toMatch(/must not contain NUL/);
  });

  it('with maxDepth, refuses objects and arrays nested deeper in the same walk (strings and numbers are not levels)', () => {
    const nest = (levels: number, leaf: unknown) => {
      let value: unknown = leaf;
      for (let i = 0; i < levels; i += 1) value = i % 2 === 0 ? [value] : { k: value };
      return value;
    };
    expect(findUnstorable(nest(3, 'x'), 'body', 3)).toBeUndefined();
    expect(findUnstorable(nest(4, 'x'), 'body', 3)).toBe('body nests deeper than 3 levels');
    expect(findUnstorable(nest(4, 'x'), 'body')).toBeUndefined();
    expect(findUnstorable(nest(2, 'x\u0000'), 'body', 3)).toMatch(/must not contain NUL/);
  });
});
