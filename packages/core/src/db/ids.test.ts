import { describe, expect, it } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { newRowId, uuidV7Floor } from './ids';

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

// the sweep reads a time range of hits as a range of their UUIDv7 ids
describe('uuidV7Floor', () => {
  it('is at most every id drawn in its millisecond and above every id drawn before it', () => {
    const ms = Date.UTC(2026, 10, 30, 19, 45, 12, 345);
    const floor = uuidV7Floor(ms);
    expect(floor).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7000-8000-000000000000$/);
    for (let i = 0; i < 50; i++) {
      expect(uuidv7({ msecs: ms }) >= floor).toBe(true);
      expect(uuidv7({ msecs: ms - 1 }) < floor).toBe(true);
      expect(uuidv7({ msecs: ms + 1 }) >= uuidV7Floor(ms + 1)).toBe(true);
    }
  });

  it('orders as the times do, across a change of the leading digits', () => {
    const times = [0, 1, 255, 256, 0xffffffff, 0x100000000, Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1) + 1];
    const floors = times.map(uuidV7Floor);
    expect([...floors].sort()).toEqual(floors);
  });
});
