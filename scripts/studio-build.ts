/**
 * `npm run build:studio [-- --force]`
 * Builds apps/studio with Vite into apps/studio/dist, unless dist was built from exactly these
 * sources (a hash of every source file is kept in dist/.source-hash). npm start and the browser
 * tests call it, so a fresh clone builds once and later runs skip the ~30 s build.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const STUDIO = fileURLToPath(new URL('../apps/studio', import.meta.url));
const DIST = join(STUDIO, 'dist');
const HASH_FILE = join(DIST, '.source-hash');
const INPUTS = ['index.html', 'vite.config.ts', 'package.json', 'src'];

function files(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => files(join(path, name)));
}

/** A hash over the studio's sources (names and contents). */
export function studioSourceHash(): string {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap((input) => files(join(STUDIO, input)))) {
    hash.update(relative(STUDIO, file));
    hash.update(readFileSync(file));
  }
  return hash.digest('hex');
}

/** Builds the studio when its sources changed since the last build; returns whether it built. */
export async function buildStudioIfStale(options: { force?: boolean } = {}): Promise<boolean> {
  const hash = studioSourceHash();
  const built = existsSync(HASH_FILE) ? readFileSync(HASH_FILE, 'utf8').trim() : '';
  if (!options.force && built === hash && existsSync(join(DIST, 'index.html'))) return false;
  await build({ configFile: join(STUDIO, 'vite.config.ts'), logLevel: 'warn' });
  writeFileSync(HASH_FILE, `${hash}\n`);
  return true;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const built = await buildStudioIfStale({ force: process.argv.includes('--force') });
  console.log(built ? `[studio] built in ${((Date.now() - started) / 1000).toFixed(1)} s → ${DIST}` : '[studio] up to date (sources unchanged)');
}
