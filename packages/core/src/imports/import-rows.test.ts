import { describe, expect, it } from 'vitest';
import { normalizeImportRow, parseImportData } from './import-rows';

const limits = { maxBytes: 1_000_000, maxRows: 100 };

describe('parseImportData (CSV)', () => {
  it('reads quoted fields with commas, quotes and embedded newlines, and strips a BOM', () => {
    const csv = '\uFEFFexternalId,email,note\nu1,a@x.io,"hello, ""world""\nsecond line"\nu2,,plain\n';
    const rows = parseImportData('csv', csv, limits);
    expect(rows).toEqual([
      { externalId: 'u1', email: 'a@x.io', note: 'hello, "world"\nsecond line' },
      { externalId: 'u2', email: '', note: 'plain' },
    ]);
  });

  it('marks a row with the wrong number of cells instead of failing the file', () => {
    const rows = parseImportData('csv', 'externalId,email\nu1,a@x.io,extra\nu2,b@x.io\n', limits);
    expect(normalizeImportRow(rows[0]!, 'csv')).toEqual({ ok: false, error: 'expected 2 columns, found 3' });
    expect(normalizeImportRow(rows[1]!, 'csv')).toMatchObject({ ok: true });
  });

  it.each([
    ['no externalId column', 'email\na@x.io\n', /externalId column/],
    ['an unterminated quote', 'externalId,email\n"u1,a@x.io\n', /Invalid CSV/],
    ['only a header', 'externalId,email\n', /no rows/],
    ['a duplicate column', 'externalId,email,email\nu1,a,b\n', /appears twice/],
  ])('rejects %s with a 400', (_name, csv, message) => {
    expect(() => parseImportData('csv', csv, limits)).toThrow(message);
    try {
      parseImportData('csv', csv, limits);
    } catch (error) {
      expect((error as { status: number }).status).toBe(400);
    }
  });

  it('answers 400 over the row limit and 413 over the byte limit', () => {
    const csv = `externalId\n${Array.from({ length: 101 }, (_, i) => `u${i}`).join('\n')}`;
    expect(() => parseImportData('csv', csv, limits)).toThrow(/101 rows; the maximum is 100/);
    try {
      parseImportData('csv', 'externalId\nu1\n', { maxBytes: 5, maxRows: 10 });
      expect.unreachable();
    } catch (error) {
      expect((error as { status: number }).status).toBe(413);
    }
  });
});

describe('parseImportData (JSON)', () => {
  it('accepts an array of objects and flags non-objects per row', () => {
    const rows = parseImportData('json', JSON.stringify([{ externalId: 'u1' }, 'nope']), limits);
    expect(normalizeImportRow(rows[1]!, 'json')).toEqual({ ok: false, error: 'row is not an object' });
  });

  it.each(['{"externalId":"u1"}', '[{"externalId":', ''])('rejects %j with a 400', (data) => {
    expect(() => parseImportData('json', data, limits)).toThrow(/Invalid JSON|no rows/);
  });
});

describe('normalizeImportRow', () => {
  it('puts extra columns into properties, skips empty CSV cells and system fields', () => {
    expect(normalizeImportRow({ externalId: ' u1 ', email: 'A@x.io', plan: 'pro', city: '', id: 'x', createdAt: 'y' }, 'csv')).toEqual({
      ok: true,
      row: { externalId: 'u1', email: 'A@x.io', properties: { plan: 'pro' } },
    });
  });

  it('spreads a properties column holding a JSON object (the export format)', () => {
    expect(normalizeImportRow({ externalId: 'u1', properties: '{"plan":"pro","n":2}' }, 'csv')).toEqual({
      ok: true,
      row: { externalId: 'u1', properties: { plan: 'pro', n: 2 } },
    });
    expect(normalizeImportRow({ externalId: 'u1', properties: { nested: { a: 1 } }, score: 3 }, 'json')).toEqual({
      ok: true,
      row: { externalId: 'u1', properties: { nested: { a: 1 }, score: 3 } },
    });
  });

  it.each([
    [{ email: 'a@x.io' }, 'externalId is required'],
    [{ externalId: '  ' }, 'externalId is required'],
    [{ externalId: 'u1', email: 'ada.lovelace@example' }, 'invalid email'],
    [{ externalId: 'u1', properties: '[1]' }, 'properties must be an object'],
    [{ externalId: 'u1', properties: '{bad' }, 'properties is not valid JSON'],
  ])('rejects %j', (raw, error) => {
    expect(normalizeImportRow(raw, 'csv')).toEqual({ ok: false, error });
  });
});
