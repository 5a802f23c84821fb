/**
 * Docs name files in code spans (`packages/core/src/...`) far more often than they link them, and a
 * renamed file leaves such a name pointing nowhere. Links are checked by remark-validate-links
 * (`npm run docs:links`, part of `npm run check`); this test covers the names a link checker cannot
 * see: every code span in a doc that starts with a top-level folder of the repo must name a file or
 * folder that exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const topFolders = ['apps/', 'packages/', 'journeys/', 'temporal/', 'runtime/', 'testing/', 'migrations/', 'scripts/', 'bench/', 'test/', 'docs/', '.ci/'];
// outputs a command writes (git-ignored), named in docs as where to look after running it; a fresh
// clone has none of them until that command runs (`npm run check` runs before any build)
const generated = ['bench/results/', 'packages/client/dist/', 'journeys/__histories__/', 'apps/studio/dist'];

function docs(): string[] {
  const inDocs = readdirSync(path.join(repo, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  const readmes = ['README.md', 'bench/README.md', 'journeys/README.md', 'migrations/README.md', 'packages/client/README.md'];
  return [...inDocs, ...readmes.filter((file) => existsSync(path.join(repo, file)))];
}

/** A code span's path part: `a/b.ts:12` and `a/b.md#heading` name `a/b.ts` and `a/b.md`; placeholders and globs are not names. */
function namedPath(span: string): string | null {
  if (!topFolders.some((folder) => span.startsWith(folder)) || /[\s*<>{}$|]/.test(span)) return null;
  const file = span.split('#')[0]!.replace(/:\d+(-\d+)?$/, '');
  return generated.some((prefix) => file.startsWith(prefix)) ? null : file;
}

describe('files named in docs', () => {
  it.each(docs())('%s names only files that exist', (doc) => {
    const missing: string[] = [];
    readFileSync(path.join(repo, doc), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        for (const [, span] of line.matchAll(/`([^`\n]+)`/g)) {
          const file = namedPath(span!);
          if (file && !existsSync(path.join(repo, file))) missing.push(`${doc}:${index + 1} ${file}`);
        }
      });
    expect(missing).toEqual([]);
  });
});
