import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);

/** coreLayers as eslint.config.js writes it (read as text: loading the config loads every lint plugin). */
function lintCoreLayers(): string[] {
  const config = readFileSync(new URL('eslint.config.js', root), 'utf8');
  const list = /const coreLayers = \[([^\]]*)\]/.exec(config)?.[1];
  if (list === undefined) throw new Error('eslint.config.js no longer declares `const coreLayers = [...]`');
  return [...list.matchAll(/'([^']+)'/g)].map((match) => match[1]!);
}

describe('the core layer map', () => {
  it('places every folder of packages/core/src, and only those', () => {
    const folders = readdirSync(new URL('packages/core/src/', root), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    // a folder missing from coreLayers would be held by no zone: it could import anything
    expect(lintCoreLayers().sort()).toEqual(folders.sort());
  });

  it('is listed in docs/contributing.md in the order the lint holds', () => {
    const contributing = readFileSync(new URL('docs/contributing.md', root), 'utf8');
    const block = /the folders are ordered too[\s\S]*?```\n([\s\S]*?)```/.exec(contributing)?.[1];
    expect(block, 'the core order block of docs/contributing.md').toBeDefined();
    const documented = block!.split(/[\s→]+/).filter((name) => name !== '');
    expect(documented).toEqual(lintCoreLayers());
  });
});
