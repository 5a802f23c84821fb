import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEntry } from '../../../test/run-entry';
import { issueApiKey, startTestApi, type TestApi } from '../../../test/test-api';
import { integrationEnv } from '../../../test/test-env';
import { clientTypes, instanceCatalog, workingTreeCatalog } from './client-types';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('waymark client generate --from a running instance', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
  });
  afterAll(() => api?.close());

  it("reads the event catalog and the templates' data schemas with a read key: the same types as the working tree's", async () => {
    const readKey = await issueApiKey(api, LEGACY, 'client-generate', ['read']);
    const fromInstance = await instanceCatalog(`${api.url}/`, readKey);
    const fromTree = await workingTreeCatalog();
    expect(fromInstance.templates.map((template) => template.key).sort()).toEqual(fromTree.templates.map((template) => template.key).sort());
    expect(fromInstance.events.find((event) => event.name === 'trial.started')?.schema).toMatchObject({
      properties: { plan: { enum: ['free', 'pro', 'team'] } },
      required: ['plan'],
    });
    const sorted = (catalog: typeof fromTree) => ({
      events: [...catalog.events].sort((a, b) => a.name.localeCompare(b.name)),
      templates: [...catalog.templates].sort((a, b) => a.key.localeCompare(b.key)),
    });
    expect(await clientTypes(sorted(fromInstance), 'x')).toBe(await clientTypes(sorted(fromTree), 'x'));
  });

  it('takes the key from WAYMARK_API_KEY, so it stays off the command line', async () => {
    const readKey = await issueApiKey(api, LEGACY, 'client-generate-env', ['read']);
    const out = join(await mkdtemp(join(tmpdir(), 'waymark-client-')), 'waymark.d.ts');
    const generated = await runEntry(
      'apps/cli/src/main.ts',
      { ...integrationEnv(), WAYMARK_API_KEY: readKey },
      { args: ['client', 'generate', '--from', api.url, '--out', out] },
    );
    expect(generated.code, generated.output).toBe(0);
    expect(await readFile(out, 'utf8')).toContain('trial.started');
  });

  it('a key the instance refuses is an error naming the status', async () => {
    await expect(instanceCatalog(api.url, 'wm_not-a-key')).rejects.toThrow(/answered 401/);
  });
});
