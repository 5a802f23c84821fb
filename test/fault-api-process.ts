/**
 * An api process that dies (SIGKILL, as a crash) right after the commit of an event whose
 * Idempotency-Key starts with KILL_AFTER_COMMIT, before anything of it is routed: the fault hook of
 * the ingest pipeline (packages/core/src/events/ingest-deps.ts). Run by startFaultApiProcess; it
 * sends its address to the parent over IPC once it listens.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@waymark/core/config/config';
import { createLogger } from '@waymark/core/logging/logger';
import { buildApp } from '../apps/api/src/app';
import { createAppDeps } from '../apps/api/src/deps';

export const KILL_AFTER_COMMIT = 'kill-after-commit:';

const self = fileURLToPath(import.meta.url);
const repoRoot = path.resolve(path.dirname(self), '..');

/** Starts the process on `env` (a full configuration) and resolves with it and its address. */
export async function startFaultApiProcess(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', self], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`fault api exited (code ${code}) before listening`)));
    child.once('message', (message) => resolve((message as { url: string }).url));
  });
  return { child, url };
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel, name: 'fault-api', format: 'json' });
  const deps = await createAppDeps(config, logger, {
    ingestFaults: {
      async afterCommit(events) {
        if (events.some((event) => event.idempotencyKey?.startsWith(KILL_AFTER_COMMIT) === true)) process.kill(process.pid, 'SIGKILL');
      },
    },
  });
  const app = await buildApp({ deps, logger });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  process.send?.({ url });
}

if (process.argv[1] === self) void main();
