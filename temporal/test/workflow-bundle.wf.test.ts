import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { journeyWorkflowBundle } from './time-skipping';
import { cachedWorkflowBundle } from './workflow-bundle';

// inside the repository, so that the workflow resolves @temporalio/workflow as real ones do; plain
// JavaScript, because the bundler compiles TypeScript outside node_modules only
const cacheRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/.cache/waymark');
mkdirSync(cacheRoot, { recursive: true });
const dir = mkdtempSync(path.join(cacheRoot, 'bundle-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('reuses a bundle until a file it was built from changes', async () => {
  const workflowsPath = path.join(dir, 'workflows.js');
  const cacheDir = path.join(dir, 'cache');
  writeFileSync(workflowsPath, `import { greeting } from './greeting.js';\nexport async function greet() { return greeting; }\n`);
  writeFileSync(path.join(dir, 'greeting.js'), `export const greeting = 'first greeting';\n`);

  const built = await cachedWorkflowBundle(workflowsPath, cacheDir);
  expect(built.fromCache).toBe(false);
  expect(built.code).toContain('first greeting');

  const reused = await cachedWorkflowBundle(workflowsPath, cacheDir);
  expect(reused).toEqual({ code: built.code, fromCache: true });

  // an imported module changed: webpack builds again, and the new bundle is the one kept
  writeFileSync(path.join(dir, 'greeting.js'), `export const greeting = 'second greeting';\n`);
  const rebuilt = await cachedWorkflowBundle(workflowsPath, cacheDir);
  expect(rebuilt.fromCache).toBe(false);
  expect(rebuilt.code).toContain('second greeting');
  expect(rebuilt.code).not.toContain('first greeting');
  expect((await cachedWorkflowBundle(workflowsPath, cacheDir)).fromCache).toBe(true);
});

// The sandbox evaluates every module a run imports once per run (and keeps it while the run is
// cached): zod's ~90 modules and the schemas built from them cost each journey run about a fifth of
// its workflow-thread CPU and a megabyte of memory (bench/HISTORY.md, "What a run costs the worker").
it('the worker bundle holds no zod: workflow code imports only types from it', async () => {
  const { code } = await journeyWorkflowBundle();
  expect(code).toContain('./temporal/workflows/journey.ts');
  expect(code).not.toMatch(/node_modules\/zod\//);
});
