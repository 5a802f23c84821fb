import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

async function waitForJob(api: TestApi, jobId: string, timeoutMs = 240_000, seen: number[] = []) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await api.request('GET', `/v1/admin/contacts/import/${jobId}`, { token: LEGACY });
    if (job.body.status === 'processing') seen.push(job.body.processedRows + job.body.failedRows);
    if (job.body.status === 'completed' || job.body.status === 'failed') return job.body;
    if (Date.now() > deadline) throw new Error(`import ${jobId} still ${job.body.status} (${job.body.processedRows}/${job.body.totalRows})`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describe('bulk import and export (full-admin)', () => {
  let api: TestApi;
  const keys: Record<string, string> = {};
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, IMPORT_MAX_ROWS: '60000', IMPORT_MAX_BYTES: String(4 * 1024 * 1024) });
    for (const [name, scopes] of Object.entries({ read: ['read'], journeyAdmin: ['journey-admin'], ingest: ['ingest'] })) {
      keys[name] = (await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: `bulk-${name}`, scopes } })).body.key;
    }
  });
  afterAll(() => api.close());

  it('imports a 50k-row CSV with a few bad rows: exact counts, per-row errors, progress visible', async () => {
    const tag = randomUUID().slice(0, 8);
    const lines = ['\uFEFFexternalId,email,plan,note'];
    const bad = new Map<number, string>([
      [10, 'invalid email'],
      [25_000, 'externalId is required'],
      [49_999, 'expected 4 columns, found 5'],
    ]);
    for (let row = 1; row <= 50_000; row += 1) {
      if (row === 10) lines.push(`${tag}-${row},not-an-email,pro,x`);
      else if (row === 25_000) lines.push(`,b${row}@example.com,pro,x`);
      else if (row === 49_999) lines.push(`${tag}-${row},c@example.com,pro,x,extra`);
      else if (row === 2) lines.push(`${tag}-${row},two@example.com,pro,"multi\nline, ""quoted"""`);
      else lines.push(`${tag}-${row},u${row}@example.com,${row % 2 === 0 ? 'pro' : 'free'},`);
    }
    const submitted = await api.request('POST', '/v1/admin/contacts/import', {
      token: LEGACY,
      body: { format: 'csv', data: lines.join('\n'), fileName: 'big.csv' },
    });
    expect(submitted.status).toBe(202);
    expect(submitted.body).toEqual({ jobId: expect.any(String), status: 'pending' });

    const progress: number[] = [];
    const job = await waitForJob(api, submitted.body.jobId, 280_000, progress);
    expect(progress.some((done) => done > 0 && done < 50_000)).toBe(true);
    expect(job).toMatchObject({ id: submitted.body.jobId, status: 'completed', totalRows: 50_000, processedRows: 49_997, failedRows: 3 });
    expect(job.errors).toEqual([...bad].map(([row, error]) => ({ row, error })));

    const count = await api.deps.db
      .selectFrom('contacts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('externalId', 'like', `${tag}-%`)
      .executeTakeFirstOrThrow();
    expect(count.n).toBe(49_997);
    const two = await api.request('GET', `/v1/admin/contacts/${tag}-2`, { token: LEGACY });
    expect(two.body.contact).toMatchObject({ email: 'two@example.com', properties: { plan: 'pro', note: 'multi\nline, "quoted"' } });
    const three = await api.request('GET', `/v1/admin/contacts/${tag}-3`, { token: LEGACY });
    expect(three.body.contact.properties).toEqual({ plan: 'free' });
  }, 300_000);

  it('imports JSON rows, merging onto existing contacts by externalId (re-import adds nothing)', async () => {
    const tag = randomUUID().slice(0, 8);
    const data = JSON.stringify([
      { externalId: `${tag}-a`, email: 'a@example.com', properties: { plan: 'pro' }, score: 1 },
      { externalId: `${tag}-b`, tags: ['x'] },
      { email: 'orphan@example.com' },
    ]);
    for (let round = 0; round < 2; round += 1) {
      const submitted = await api.request('POST', '/v1/admin/contacts/import', { token: LEGACY, body: { format: 'json', data } });
      expect(await waitForJob(api, submitted.body.jobId, 60_000)).toMatchObject({
        status: 'completed',
        totalRows: 3,
        processedRows: 2,
        failedRows: 1,
        errors: [{ row: 3, error: 'externalId is required' }],
      });
      // the uploaded rows (ids, addresses, properties) are kept only while the job runs
      const job = await api.deps.db.selectFrom('importJobs').select('data').where('id', '=', submitted.body.jobId).executeTakeFirstOrThrow();
      expect(job.data).toBe('');
    }
    const rows = await api.deps.db.selectFrom('contacts').selectAll().where('externalId', 'like', `${tag}-%`).orderBy('externalId').execute();
    expect(rows.map((row) => [row.externalId, row.properties])).toEqual([
      [`${tag}-a`, { plan: 'pro', score: 1 }],
      [`${tag}-b`, { tags: ['x'] }],
    ]);
  });

  it.each([
    ['malformed CSV', 400, () => ({ format: 'csv', data: 'externalId,email\n"u1,a@b.co\n' }), /Invalid CSV/],
    ['CSV without externalId', 400, () => ({ format: 'csv', data: 'email\na@b.co\n' }), /externalId column/],
    ['JSON that is not an array', 400, () => ({ format: 'json', data: '{"externalId":"x"}' }), /array/],
    ['unknown format', 400, () => ({ format: 'xml', data: '<a/>' }), /format/],
    ['empty data', 400, () => ({ format: 'csv', data: '' }), /data/],
    ['too many rows', 400, () => ({ format: 'csv', data: `externalId\n${Array.from({ length: 60_001 }, (_, i) => `r${i}`).join('\n')}` }), /maximum is 60000/],
    [
      'too many bytes',
      413,
      () => ({ format: 'csv', data: `externalId,pad\n${Array.from({ length: 50_000 }, (_, i) => `r${i},${'x'.repeat(100)}`).join('\n')}` }),
      /maximum is 4194304 bytes/,
    ],
  ] as const)('rejects %s with %i', async (_name, status, body, message) => {
    const response = await api.request('POST', '/v1/admin/contacts/import', { token: LEGACY, body: body() });
    expect(response.status).toBe(status);
    expect(response.body.error).toMatch(message);
  });

  it('404s an unknown job and 400s a malformed job id', async () => {
    expect(await api.request('GET', `/v1/admin/contacts/import/${randomUUID()}`, { token: LEGACY })).toMatchObject({
      status: 404,
      body: { error: 'Import job not found' },
    });
    expect((await api.request('GET', '/v1/admin/contacts/import/nope', { token: LEGACY })).status).toBe(400);
  });

  it('exports CSV as a streamed attachment with the documented columns, and JSON with search', async () => {
    const tag = randomUUID().slice(0, 8);
    await api.request('POST', '/v1/admin/contacts', {
      token: LEGACY,
      body: { externalId: `exp-${tag}-1`, email: `e1.${tag}@example.com`, properties: { note: 'comma, "quote"\nnewline', nested: { a: 1 } } },
    });
    await api.request('POST', '/v1/admin/contacts', { token: LEGACY, body: { externalId: `exp-${tag}-2` } });

    const csv = await api.request('GET', `/v1/admin/contacts/export?format=csv&search=exp-${tag}`, { token: LEGACY });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="contacts-[\d-]+\.csv"$/);
    const records = parse(csv.text, { columns: true }) as Record<string, string>[];
    expect(Object.keys(records[0]!)).toEqual(['id', 'externalId', 'email', 'properties', 'firstSeenAt', 'lastSeenAt', 'createdAt', 'updatedAt']);
    expect(records).toHaveLength(2);
    const first = records.find((record) => record.externalId === `exp-${tag}-1`)!;
    expect(JSON.parse(first.properties!)).toEqual({ note: 'comma, "quote"\nnewline', nested: { a: 1 } });

    const json = await api.request('GET', `/v1/admin/contacts/export?search=exp-${tag}&limit=1`, { token: LEGACY });
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(json.headers.get('content-disposition')).toMatch(/filename="contacts-[\d-]+\.json"/);
    expect(json.body).toHaveLength(1);
    expect(json.body[0]).toMatchObject({ externalId: expect.stringContaining(`exp-${tag}`), createdAt: expect.any(String) });

    const empty = await api.request('GET', `/v1/admin/contacts/export?search=${randomUUID()}`, { token: LEGACY });
    expect(empty.body).toEqual([]);
  });

  it('exports up to 10000 rows; above → 400', async () => {
    const all = await api.request('GET', '/v1/admin/contacts/export?limit=10000&format=json', { token: LEGACY });
    expect(all.status).toBe(200);
    expect(all.body).toHaveLength(10_000);
    expect(new Set(all.body.map((contact: { id: string }) => contact.id)).size).toBe(10_000);
    for (const query of ['limit=10001', 'limit=0', 'format=xml']) {
      const response = await api.request('GET', `/v1/admin/contacts/export?${query}`, { token: LEGACY });
      expect(response.status).toBe(400);
      expect(typeof response.body.error).toBe('string');
    }
  });

  it('scopes: journey-admin and read cannot import or export; ingest cannot either', async () => {
    for (const key of [keys.read, keys.journeyAdmin, keys.ingest]) {
      expect(await api.request('POST', '/v1/admin/contacts/import', { token: key, body: { format: 'csv', data: 'externalId\nx' } })).toMatchObject({
        status: 403,
        body: { error: 'Insufficient scope' },
      });
      expect((await api.request('GET', '/v1/admin/contacts/export', { token: key })).status).toBe(403);
      expect((await api.request('GET', `/v1/admin/contacts/import/${randomUUID()}`, { token: key })).status).toBe(403);
    }
    // and nothing without a credential
    expect((await api.request('GET', '/v1/admin/contacts/export')).status).toBe(401);
  });
});
