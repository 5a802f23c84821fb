import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/** docs/operations.md, Export: a CSV cell a spreadsheet would run as a formula is written as text. */
describe('security: the contacts CSV export writes no live formula', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
  });
  afterAll(() => api?.close());

  // tab and carriage return are covered by the rule's unit test: an externalId is trimmed when stored
  it("prefixes a cell beginning with =, +, - or @ with '", async () => {
    const tag = randomUUID().slice(0, 8);
    const ids = ['=1+1', '+1', '-1', '@SUM(A1)'].map((start) => `${start}-f${tag}`);
    for (const externalId of ids) {
      expect((await api.request('POST', '/v1/admin/contacts', { token: LEGACY, body: { externalId } })).status).toBe(201);
    }
    await api.request('POST', '/v1/admin/contacts', { token: LEGACY, body: { externalId: `plain-f${tag}` } });

    const csv = await api.request('GET', `/v1/admin/contacts/export?format=csv&search=f${tag}`, { token: LEGACY });
    expect(csv.status).toBe(200);
    const exported = (parse(csv.text, { columns: true }) as Record<string, string>[]).map((record) => record.externalId).sort();
    expect(exported).toEqual([...ids.map((id) => `'${id}`), `plain-f${tag}`].sort());
    expect(exported).toContain(`'=1+1-f${tag}`);
  });
});
