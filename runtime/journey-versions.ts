import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** journey id → its version (a short content hash: docs/journeys.md, "Changing a live journey"). */
export type JourneyVersions = ReadonlyMap<string, string>;

/**
 * Each journey's version: sha256 over the journey's source module (`<dir>/<id>.ts`) and the
 * source of every template it names (`<dir>/templates/<key>.tsx`, for each template file whose
 * key appears as a quoted string in the journey's module), cut to 6 hex characters. The template
 * keys come from the same folder, so a working-tree copy (`waymark journeys check --journeys-dir`)
 * is hashed exactly as the deployment's own sources.
 *
 * Why the source and not the compiled function: `run.toString()` differs between tsx, esbuild and
 * webpack output, so one journey would get a different version in the api, the worker and the
 * workflow bundle; the source is the same file on every machine and in every build (line endings
 * are normalised). `npm run build` ships these files beside the bundles (dist/journeys) so a
 * production process hashes the very same bytes.
 */
export function journeyVersions(journeyIds: readonly string[], dir: string): JourneyVersions {
  const templatesDir = path.join(dir, 'templates');
  const templateKeys = existsSync(templatesDir)
    ? readdirSync(templatesDir)
        .filter((file) => file.endsWith('.tsx') && !file.endsWith('.test.tsx'))
        .map((file) => file.slice(0, -'.tsx'.length))
        .sort()
    : [];
  const versions = new Map<string, string>();
  for (const id of journeyIds) {
    const source = readSource(path.join(dir, `${id}.ts`), `journey '${id}' (a journey's module is named for its id)`);
    const hash = createHash('sha256').update(`journey\0${id}\0${source}\0`);
    for (const key of templateKeys) {
      if (!source.includes(`'${key}'`) && !source.includes(`"${key}"`)) continue;
      hash.update(`template\0${key}\0${readSource(path.join(templatesDir, `${key}.tsx`), `template '${key}'`)}\0`);
    }
    versions.set(id, hash.digest('hex').slice(0, 6));
  }
  return versions;
}

function readSource(file: string, what: string): string {
  if (!existsSync(file)) throw new Error(`cannot compute the version of ${what}: ${file} not found`);
  return readFileSync(file, 'utf8').replace(/\r\n/g, '\n');
}
