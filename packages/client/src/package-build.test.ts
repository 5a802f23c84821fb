import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  private?: boolean;
  exports: { '.': { types: string; import: string } };
  files: string[];
};

// a bundle and a TypeScript build: seconds
describe('@waymark/client as a package', { timeout: 120_000 }, () => {
  it('bundles for the browser: no Node built-in anywhere in it', async () => {
    // platform browser: a `node:` import (or `crypto`, `buffer`…) fails to resolve and fails the build
    const result = await build({
      entryPoints: [path.join(root, 'src/index.ts')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    const code = result.outputFiles[0]!.text;
    expect(code).toContain('createClient');
    expect(code).not.toMatch(/from ["'](node:)?(crypto|buffer|http|https|fs|util|process)["']/);
  });

  it('builds ESM with types from the Web platform alone (no Node types) into what package.json exports', () => {
    expect(manifest.private).toBeUndefined();
    expect(manifest.files).toContain('dist');
    const out = mkdtempSync(path.join(tmpdir(), 'waymark-client-dist-'));
    try {
      const tsc = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));
      execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--outDir', out], { encoding: 'utf8' });
      for (const file of [manifest.exports['.'].import, manifest.exports['.'].types])
        expect(existsSync(path.join(out, path.relative('dist', file)))).toBe(true);
      const index = readFileSync(path.join(out, 'index.js'), 'utf8');
      // Node's ESM loader needs the extension on relative imports
      expect(index).toMatch(/from '\.\/client\.js'/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
