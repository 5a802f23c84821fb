import { describe, expect, it } from 'vitest';
import { newRowId } from './ids';

describe('newRowId', () => {
  it('is a version 7 UUID', () => {
    expect(newRowId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('sorts in the order the ids were made, within one millisecond too (inserts land at the index edge)', () => {
    const ids = Array.from({ length: 2_000 }, () => newRowId());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
