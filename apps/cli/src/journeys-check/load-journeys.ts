import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Journey } from '@waymark/journey';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
/** the journey modules' `@temporalio/workflow`, with `patched()` answered by the simulation */
const workflowApi = fileURLToPath(new URL('./workflow-api.ts', import.meta.url));
const WORKFLOW_IMPORT = /(\bfrom\s*|\bimport\s*\(\s*)(['"])@temporalio\/workflow\2/g;

/** A journeys/ folder loaded into this process, and where its copy lives (stack frames point there). */
export interface LoadedJourneys {
  journeys: readonly Journey[];
  /** the folder whose code this is (a stack frame inside `copy` maps back here) */
  dir: string;
  copy: string;
  release(): void;
}

/**
 * Imports a journeys/ folder's registry (`index.ts`) into this process, beside the checkout's own:
 * the forward diff runs the running and the working-tree definitions side by side. The folder is
 * copied to a scratch directory whose `node_modules` links to the repository's, so a copy outside
 * the repository (a pull request's, a test's) imports the same packages, and two folders that are
 * both called journeys/ are two distinct module graphs. The copy's imports of `@temporalio/workflow`
 * point at workflow-api.ts: outside a workflow the SDK's `patched()` throws, the simulation decides it.
 */
export async function loadJourneysFrom(dir: string): Promise<LoadedJourneys> {
  const copy = mkdtempSync(path.join(tmpdir(), 'waymark-journeys-'));
  try {
    cpSync(dir, copy, { recursive: true, filter: (source) => !/(^|[\\/])(node_modules|__histories__)$/.test(source) });
    for (const file of readdirSync(copy, { recursive: true, encoding: 'utf8' })) {
      if (!/\.tsx?$/.test(file)) continue;
      const source = readFileSync(path.join(copy, file), 'utf8');
      const pointed = source.replace(WORKFLOW_IMPORT, (_match, lead: string, quote: string) => `${lead}${quote}${workflowApi}${quote}`);
      if (pointed !== source) writeFileSync(path.join(copy, file), pointed);
    }
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
    const module = (await import(/* @vite-ignore */ pathToFileURL(path.join(copy, 'index.ts')).href)) as { journeys: readonly Journey[] };
    return { journeys: module.journeys, dir: path.resolve(dir), copy, release: () => rmSync(copy, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(copy, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The journeys/ folder of a git revision (`git archive <ref> journeys`), extracted to a scratch
 * directory: the running definition when the deployment's code is a commit of this repository.
 */
export function journeysAtRef(ref: string): { dir: string; release(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'waymark-journeys-ref-'));
  try {
    const archive = execFileSync('git', ['-C', repoRoot, 'archive', '--format=tar', ref, 'journeys'], { maxBuffer: 256 * 1024 * 1024 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`cannot read journeys/ at git revision '${ref}': ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  return { dir: path.join(dir, 'journeys'), release: () => rmSync(dir, { recursive: true, force: true }) };
}
