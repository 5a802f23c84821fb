import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** journey id → its version (a short content hash: docs/journeys.md, "Changing a live journey"). */
export type JourneyVersions = ReadonlyMap<string, string>;

/**
 * Each journey's version: sha256 over the journey's source module (`<dir>/<id>.ts`) and the
 * source of every template it names (`<dir>/templates/<key>.tsx`, for each template key that
 * appears as a quoted string in the journey's module), cut to 6 hex characters.
 *
 * Why the source and not the compiled function: `run.toString()` differs between tsx, esbuild and
 * webpack output, so one journey would get a different version in the api, the worker and the
 * workflow bundle; the source is the same file on every machine and in every build (line endings
 * are normalised). `npm run build` ships these files beside the bundles (dist/journeys) so a
 * production process hashes the very same bytes.
 */
export function journeyVersions(journeyIds: readonly string[], templateKeys: readonly string[], dir: string): JourneyVersions {
  const versions = new Map<string, string>();
  for (const id of journeyIds) {
    const source = readSource(path.join(dir, `${id}.ts`), `journey '${id}' (a journey's module is named for its id)`);
    const hash = createHash('sha256').update(`journey\0${id}\0${source}\0`);
    for (const key of [...templateKeys].sort()) {
      if (!source.includes(`'${key}'`) && !source.includes(`"${key}"`)) continue;
      const templateFile = path.join(dir, 'templates', `${key}.tsx`);
      // a template whose module is not named for its key still counts by name
      const template = existsSync(templateFile) ? readSource(templateFile, `template '${key}'`) : '';
      hash.update(`template\0${key}\0${template}\0`);
    }
    versions.set(id, hash.digest('hex').slice(0, 6));
  }
  return versions;
}

function readSource(file: string, what: string): string {
  if (!existsSync(file)) throw new Error(`cannot compute the version of ${what}: ${file} not found`);
  return readFileSync(file, 'utf8').replace(/\r\n/g, '\n');
}
