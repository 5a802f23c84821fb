/**
 * CPU time per process (and per thread) from /proc, for benches that attribute a workload's CPU
 * to the processes serving it: read a snapshot before and after a fixed number of events, divide
 * the difference by the events. Linux only (the bench box); clock ticks are 10 ms, so a window
 * needs a few hundred events to give figures to the millisecond.
 *
 * - a process: utime + stime of /proc/<pid>/stat, which includes its threads that have exited;
 * - a thread: /proc/<pid>/task/<tid>/stat, named by /proc/<pid>/task/<tid>/comm. Node names its
 *   main thread `MainThread` (tid = pid) and every worker_threads thread `WorkerThread`: in the
 *   Temporal worker those are the SDK's workflow threads (the sandbox runs there; the worker
 *   starts no other worker threads with a json log). The Rust core's tokio threads, V8's GC and
 *   compiler helpers and libuv's pool are the rest of the process;
 * - PostgreSQL: every backend of the given databases (pg_stat_activity), summed; `trackBackends`
 *   keeps reading them through the window, so a connection closed inside it still counts (up to
 *   its last reading).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { sql } from 'kysely';
import type { Db } from '@waymark/core/db/database';

const TICKS_PER_SECOND = Number(safeExec('getconf', ['CLK_TCK']) ?? 100) || 100;

function safeExec(command: string, args: string[]): string | undefined {
  try {
    return execFileSync(command, args, { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** utime + stime in milliseconds of a /proc/.../stat file, or undefined when it is gone. */
function statCpuMs(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  // the command name (field 2) may hold spaces and parentheses: fields after the last ')'
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

export function processCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`) ?? 0;
}

/** CPU ms of each thread of `pid`, grouped by thread name (`MainThread` is the one with tid = pid). */
export function threadCpuMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const tid of tids) {
    const ms = statCpuMs(`/proc/${pid}/task/${tid}/stat`);
    if (ms === undefined) continue;
    let name = 'other';
    try {
      name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    } catch {
      // the thread exited between the listing and the read
    }
    if (Number(tid) === pid) name = 'MainThread';
    byName.set(name, (byName.get(name) ?? 0) + ms);
  }
  return byName;
}

/** The pid listening on a local TCP port (the Temporal server of TEMPORAL_ADDRESS), if this user may see it. */
export function pidListeningOn(port: number): number | undefined {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns.length < 10) continue;
      const localPort = Number.parseInt(columns[1]!.split(':')[1]!, 16);
      // state 0A = LISTEN
      if (localPort === port && columns[3] === '0A') inodes.add(columns[9]!);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${entry}/fd/${fd}`);
      } catch {
        continue;
      }
      const match = /^socket:\[(\d+)\]$/.exec(target);
      if (match !== null && inodes.has(match[1]!)) return Number(entry);
    }
  }
  return undefined;
}

/** Backends of `databases` as pid → database name. */
async function backends(db: Db, databases: readonly string[]): Promise<Map<number, string>> {
  if (databases.length === 0) return new Map();
  const { rows } = await sql<{ pid: number; datname: string }>`
    select pid, datname from pg_stat_activity where datname = any(${[...databases]}::text[]) and pid <> pg_backend_pid()`.execute(db);
  return new Map(rows.map((row) => [row.pid, row.datname]));
}

export interface CpuSubjects {
  api: number;
  worker: number;
  temporal?: number | undefined;
  redis?: number | undefined;
  /** label → databases whose backends are summed under that label */
  postgres: Record<string, readonly string[]>;
}

export interface CpuSnapshot {
  at: number;
  processes: Map<string, number>;
  workerThreads: Map<string, number>;
  backends: Map<number, { label: string; ms: number }>;
}

/**
 * Reads the backends' CPU every `intervalMs` until stopped: a pool may close an idle connection and
 * open another inside a window, and an exited backend's CPU can no longer be read, so each
 * backend's last reading stands for it (at most one interval short). `snapshot` merges them.
 */
export function trackBackends(db: Db, subjects: CpuSubjects, intervalMs = 1_000) {
  const seen = new Map<number, { label: string; ms: number }>();
  const read = async () => {
    for (const [label, databases] of Object.entries(subjects.postgres)) {
      for (const pid of (await backends(db, databases)).keys()) {
        const ms = statCpuMs(`/proc/${pid}/stat`);
        if (ms !== undefined) seen.set(pid, { label, ms });
      }
    }
  };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await read();
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    /** the last reading of every backend seen so far (read once more now) */
    async snapshot(): Promise<Map<number, { label: string; ms: number }>> {
      await read();
      return new Map(seen);
    },
    async stop(): Promise<void> {
      stopped = true;
      await loop;
    },
  };
}

export async function cpuSnapshot(db: Db, subjects: CpuSubjects): Promise<CpuSnapshot> {
  const processes = new Map<string, number>([
    ['api', processCpuMs(subjects.api)],
    ['worker', processCpuMs(subjects.worker)],
  ]);
  if (subjects.temporal !== undefined) processes.set('temporal', processCpuMs(subjects.temporal));
  if (subjects.redis !== undefined) processes.set('redis', processCpuMs(subjects.redis));
  const found = new Map<number, { label: string; ms: number }>();
  for (const [label, databases] of Object.entries(subjects.postgres)) {
    for (const pid of (await backends(db, databases)).keys()) found.set(pid, { label, ms: processCpuMs(pid) });
  }
  return { at: Date.now(), processes, workerThreads: threadCpuMs(subjects.worker), backends: found };
}

/**
 * CPU ms spent between two snapshots, per subject: api, worker (and its main thread, workflow
 * threads, other threads), temporal, redis, and one entry per PostgreSQL label. A backend seen
 * only in `after` counts from zero (a connection opened inside the window).
 */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): Map<string, number> {
  const spent = new Map<string, number>();
  for (const [name, ms] of after.processes) spent.set(name, ms - (before.processes.get(name) ?? 0));
  const threadDelta = (name: string) => (after.workerThreads.get(name) ?? 0) - (before.workerThreads.get(name) ?? 0);
  const main = threadDelta('MainThread');
  const workflow = threadDelta('WorkerThread');
  spent.set('worker main thread', main);
  spent.set('worker workflow threads', workflow);
  spent.set('worker other threads', (spent.get('worker') ?? 0) - main - workflow);
  for (const [pid, { label, ms }] of after.backends) {
    spent.set(label, (spent.get(label) ?? 0) + ms - (before.backends.get(pid)?.ms ?? 0));
  }
  return spent;
}
