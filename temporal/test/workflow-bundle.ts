import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, type BundleOptions } from '@temporalio/worker';
import { failureConverterPath } from '../payload-codec';
import { withoutWorkflowStackTraces } from '../workflow-realm';

/** A workflow bundle, and whether it came from the cache rather than from webpack. */
export interface CachedWorkflowBundle {
  /** the bundle's code (its source map is inline, as webpack writes it for the worker) */
  code: string;
  fromCache: boolean;
}

/** What a cached bundle was built from: its hash must still match for the bundle to be reused. */
interface BundleManifest {
  /** sha256 over every input file's path and content (see inputsHash) */
  inputsHash: string;
  /** every regular file webpack read: sources, package.json files, the SDK's workflow library */
  files: string[];
  /**
   * paths webpack's resolver looked for and did not find as a file (a file appearing at one could
   * change resolution); some are directories it probed as files, such as workspace symlinks
   */
  missing: string[];
}

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
type WebpackPlugin = NonNullable<WebpackConfig['plugins']>[number];

/**
 * The workflow bundle for `workflowsPath`, reused from `cacheDir` while nothing it was built from
 * has changed. Webpack takes seconds of CPU per bundle; a test process, a replay test and a
 * simulation each need the same bundle, so it is built once per change of the sources instead of
 * once per process. The key is the content of every file webpack read (found through its own
 * fileDependencies), so an edit to a journey, the runner, a dependency or the SDK rebuilds it.
 */
export async function cachedWorkflowBundle(workflowsPath: string, cacheDir: string): Promise<CachedWorkflowBundle> {
  // the bundler options' version is in the key too: a bundle cached before the realm's settings were added is not reused
  const key = `${bundlerVersion()}\n${workflowsPath}\nwithout-workflow-stack-traces\nsealed-failures`;
  const entryPath = path.join(cacheDir, `${createHash('sha256').update(key).digest('hex').slice(0, 16)}.bundle`);
  const cached = readCached(entryPath);
  if (cached !== undefined) return { code: cached, fromCache: true };

  let manifest: Omit<BundleManifest, 'inputsHash'> | undefined;
  const recordInputs: WebpackPlugin = {
    apply(compiler) {
      compiler.hooks.done.tap('waymark-bundle-inputs', (stats) => {
        // directories and the bundler's temporary entry file (gone after the build) are not inputs
        const files = [...stats.compilation.fileDependencies].filter((file) => isFile(file)).sort();
        manifest = { files, missing: [...stats.compilation.missingDependencies].sort() };
      });
    },
  };
  const bundle = await bundleWorkflowCode({
    workflowsPath,
    // the bundler's info lines would drown a test report
    logger: new DefaultLogger('WARN'),
    // as the worker bundles it (apps/worker/src/workflow-bundle.ts)
    failureConverterPath: failureConverterPath(),
    webpackConfigHook: (config) => withoutWorkflowStackTraces({ ...config, plugins: [...(config.plugins ?? []), recordInputs] }),
  });
  if (manifest === undefined) throw new Error('the workflow bundler finished without reporting its input files');
  writeCached(entryPath, { ...manifest, inputsHash: inputsHash(manifest.files) }, bundle.code);
  return { code: bundle.code, fromCache: false };
}

/** The bundler's own version is part of the key: its webpack configuration shapes the output. */
function bundlerVersion(): string {
  // the package's main is lib/index.js
  const packageJson = path.resolve(path.dirname(createRequire(import.meta.url).resolve('@temporalio/worker')), '../package.json');
  return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false; // gone (the bundler's temporary entry file): not an input
  }
}

function inputsHash(files: readonly string[]): string | undefined {
  const hash = createHash('sha256');
  for (const file of files) {
    if (!isFile(file)) return undefined; // an input was removed: the bundle is stale
    hash.update(`${file}\0`).update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** The cache file: the manifest as one JSON line, then the bundle's code. */
function readCached(entryPath: string): string | undefined {
  if (!existsSync(entryPath)) return undefined;
  const content = readFileSync(entryPath, 'utf8');
  const newline = content.indexOf('\n');
  const manifest = JSON.parse(content.slice(0, newline)) as BundleManifest;
  if (manifest.missing.some((file) => isFile(file))) return undefined;
  if (inputsHash(manifest.files) !== manifest.inputsHash) return undefined;
  return content.slice(newline + 1);
}

function writeCached(entryPath: string, manifest: Omit<BundleManifest, 'inputsHash'> & { inputsHash: string | undefined }, code: string): void {
  if (manifest.inputsHash === undefined) return; // an input vanished during the build: not worth keeping
  mkdirSync(path.dirname(entryPath), { recursive: true });
  // two test processes may build at once: each writes its own file and renames it into place
  const partial = `${entryPath}.${process.pid}.partial`;
  writeFileSync(partial, `${JSON.stringify(manifest)}\n${code}`);
  renameSync(partial, entryPath);
}
