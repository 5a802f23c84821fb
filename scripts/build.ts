/**
 * `npm run build`: what a production deployment runs, with no TypeScript toolchain at run time
 * (docs/deploy.md):
 *   dist/api/server.js, dist/worker/main.js, dist/cli/main.js   `NODE_ENV=production node dist/…`
 *   dist/workflow-bundle.js                                     the worker's workflow code, prebuilt
 *   dist/temporal/failure-converter.js                          loaded by path by each process's Temporal SDK
 *   apps/studio/dist                                            the studio, served by the api
 * Each entry is one esbuild bundle of our own workspaces (@waymark/*: TypeScript sources, no build
 * of their own); npm packages stay imports resolved from node_modules at run time, so native
 * addons (@temporalio/core-bridge, @node-rs/argon2) and pino's worker-thread transports load as
 * their packages expect. The build fails when a bundle imports a package that `npm ci --omit=dev`
 * would leave out.
 */
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';
import { writeWorkflowBundle } from '../apps/worker/src/workflow-bundle';
import { buildStudioIfStale } from './studio-build';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT_DIR = `${ROOT}dist`;

/** Output name (under dist/, without .js) → entry point. A new process gets a line here. */
const ENTRY_POINTS: Record<string, string> = {
  'api/server': 'apps/api/src/server.ts',
  'worker/main': 'apps/worker/src/main.ts',
  'cli/main': 'apps/cli/src/main.ts',
  // not a process: the failure converter the SDK loads by path in each of them (temporal/payload-codec.ts)
  'temporal/failure-converter': 'temporal/failure-converter.ts',
};

/** Our workspaces are bundled; every other bare import is an npm package loaded from node_modules. */
const npmPackagesExternal: Plugin = {
  name: 'npm-packages-external',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@waymark/') ? undefined : { path: args.path, external: true }));
  },
};

interface PackageJson {
  dependencies?: Record<string, string>;
  workspaces?: string[];
}

function readPackageJson(dir: string): PackageJson {
  return JSON.parse(readFileSync(`${ROOT}${dir}/package.json`, 'utf8')) as PackageJson;
}

/** Packages a production install (`npm ci --omit=dev`) keeps: the dependencies of the root and of every workspace. */
function productionDependencies(): Set<string> {
  const root = readPackageJson('.');
  // the root's "workspaces": a folder, or "folder/*" for each folder in it
  const workspaceDirs = (root.workspaces ?? []).flatMap((pattern) =>
    pattern.endsWith('/*') ? readdirSync(`${ROOT}${pattern.slice(0, -2)}`).map((name) => `${pattern.slice(0, -2)}/${name}`) : [pattern],
  );
  const packages = [root, ...workspaceDirs.filter((dir) => existsSync(`${ROOT}${dir}/package.json`)).map(readPackageJson)];
  return new Set(packages.flatMap((pkg) => Object.keys(pkg.dependencies ?? {})));
}

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

function devOnlyImports(metafile: Metafile): string[] {
  const allowed = productionDependencies();
  const missing = new Set<string>();
  for (const [output, { imports }] of Object.entries(metafile.outputs)) {
    for (const { path, external } of imports) {
      if (!external || path.startsWith('node:')) continue;
      const name = packageName(path);
      if (!allowed.has(name)) missing.add(`${name} (imported by ${output})`);
    }
  }
  return [...missing];
}

async function buildEntryPoints(): Promise<void> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: Object.entries(ENTRY_POINTS).map(([out, entry]) => ({ out, in: entry })),
    outdir: OUT_DIR,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    // shared modules of the three entries are bundled into each: one file per process, no chunks
    splitting: false,
    sourcemap: true,
    plugins: [npmPackagesExternal],
    metafile: true,
    logLevel: 'warning',
  });
  const missing = devOnlyImports(result.metafile);
  if (missing.length > 0) {
    throw new Error(`the build imports packages that are not production dependencies (move them to "dependencies"):\n  ${missing.join('\n  ')}`);
  }
}

const started = Date.now();
await buildEntryPoints();
console.log(`[build] api, worker and cli → dist/{${Object.keys(ENTRY_POINTS).join(',')}}.js`);
// a journey's version hashes its source module and its templates' (runtime/journey-versions.ts):
// the compiled processes read them from dist/journeys, the same bytes as in the repository
cpSync(`${ROOT}journeys`, `${OUT_DIR}/journeys`, { recursive: true, filter: (source) => !/\.test\.tsx?$/.test(source) && !source.includes('__histories__') });
console.log('[build] journey sources (for their versions) → dist/journeys');
await writeWorkflowBundle(`${OUT_DIR}/workflow-bundle.js`);
// the one a worker with tracing on loads (docs/operations.md, "Tracing")
await writeWorkflowBundle(`${OUT_DIR}/workflow-bundle-tracing.js`, { tracing: true });
console.log('[build] workflow bundles → dist/workflow-bundle.js, dist/workflow-bundle-tracing.js');
await buildStudioIfStale();
console.log('[build] studio → apps/studio/dist');
console.log(`[build] done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
