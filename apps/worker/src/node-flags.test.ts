import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { missingWorkerNodeFlags, WORKER_NODE_FLAGS } from './node-flags';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');

describe("the worker's node flags", () => {
  it('names the flags a command line lacks', () => {
    expect(missingWorkerNodeFlags(['--enable-source-maps'])).toEqual([...WORKER_NODE_FLAGS]);
    expect(missingWorkerNodeFlags(['--enable-source-maps', ...WORKER_NODE_FLAGS])).toEqual([]);
  });

  // every written command that starts a worker carries every flag of the list
  it.each([
    ['docker-compose.yml', (text: string) => text.split('\n').filter((line) => line.includes('dist/worker/main.js'))],
    ['docs/deploy.md', (text: string) => text.split('\n').filter((line) => /node .*dist\/worker\/main\.js/.test(line))],
    ['scripts/start.sh', (text: string) => text.split('\n').filter((line) => line.includes('apps/worker/src/main.ts'))],
    ['package.json', (text: string) => [JSON.parse(text).scripts['dev:worker'] as string]],
  ])('%s starts the worker with them', (file, commands) => {
    const lines = commands(read(file));
    expect(lines.length, `a worker command in ${file}`).toBeGreaterThan(0);
    for (const line of lines) for (const flag of WORKER_NODE_FLAGS) expect(line, `${file}: ${line}`).toContain(flag);
  });
});
