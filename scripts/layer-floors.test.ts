/**
 * The floors of the layer map (docs/contributing.md, "The layer map") are held by the lint's zones
 * (`workspaceLayers` in eslint.config.js). A zone that names a folder which no longer exists, or a
 * floor left out of the list, holds nothing and fails silently: this test writes a deliberate upward
 * import into each floor and requires `npm run lint`'s ESLint to refuse it. The apps' Temporal
 * connections and clients, built only in runtime/, are held the same way.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Per floor: a file that would sit in it, and an import of a file on a floor above it. */
const upwardImports = [
  { floor: 'packages/', file: 'packages/core/src/floor-probe.ts', imports: '../../../temporal/journey-orchestrator' },
  { floor: 'packages/', file: 'packages/journey/src/floor-probe.ts', imports: '../../../testing/journey-kit/src/index' },
  { floor: 'journeys/', file: 'journeys/floor-probe.ts', imports: '../temporal/journey-orchestrator' },
  { floor: 'temporal/', file: 'temporal/floor-probe.ts', imports: '../runtime/runtime' },
  { floor: 'temporal/', file: 'temporal/floor-probe.ts', imports: '../testing/journey-kit/src/index' },
  { floor: 'runtime/', file: 'runtime/floor-probe.ts', imports: '../apps/api/src/deps' },
  { floor: 'testing/', file: 'testing/journey-kit/src/floor-probe.ts', imports: '../../../apps/cli/src/program' },
];

describe('the floors of the layer map', () => {
  // only the zones are under test: no-cycle would walk each probe's whole import graph
  const eslint = new ESLint({ cwd: repo, overrideConfig: { rules: { 'import-x/no-cycle': 'off' } } });

  it.each(upwardImports)(
    'refuses an import from $floor ($file) of $imports',
    async ({ file, imports }) => {
      const [result] = await eslint.lintText(`import { x } from '${imports}';\nexport const y = x;\n`, { filePath: path.join(repo, file) });
      const refusals = result!.messages.filter((message) => message.ruleId === 'import-x/no-restricted-paths');
      expect(refusals.map((message) => message.message)).toEqual([expect.stringContaining('may import only the workspaces below its row')]);
    },
    60_000,
  ); // loading the lint's plugins and resolver, on a shared two-core machine

  it("refuses an app's own Temporal connection or client, and lets it name their types", async () => {
    const source = [
      "import { Client, Connection, type ConnectionLike } from '@temporalio/client';",
      "import { NativeConnection } from '@temporalio/worker';",
      'export const probe = (connection: ConnectionLike) => [new Client({ connection }), Connection, NativeConnection];',
      '',
    ].join('\n');
    const [result] = await eslint.lintText(source, { filePath: path.join(repo, 'apps/worker/src/floor-probe.ts') });
    const refusals = result!.messages.filter((message) => message.ruleId === '@typescript-eslint/no-restricted-imports');
    expect(refusals.map((message) => message.message)).toEqual([
      expect.stringContaining("'Client' import from '@temporalio/client' is restricted"),
      expect.stringContaining("'Connection' import from '@temporalio/client' is restricted"),
      expect.stringContaining("'NativeConnection' import from '@temporalio/worker' is restricted"),
    ]);
  }, 60_000);
});
