import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { loadCommandConfig } from '@waymark/core/config/config';
import type { JourneyCheckReport } from './check-journeys';
import { workingTreeWorkflowBundle } from './working-tree-bundle';
import { DEPLOYMENT_JOURNEYS_DIR } from '@waymark/runtime/runtime';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { eventually } from '../../../../test/eventually';
import { openScratchDatabase, type ScratchDatabase } from '../../../../test/scratch-database';
import { releaseTaskQueue } from '../../../../test/task-queue-cleanup';
import { integrationEnv } from '../../../../test/test-env';
import { startTestApi, type TestApi } from '../../../../test/test-api';
import { exited, startWorkerProcess } from '../../../../test/worker-process';
import { journeysCommand } from './command';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const RUNS = 30;

/** A working tree: a copy of journeys/ whose welcome-series body is edited by `edit`. */
function workingTree(edit: (source: string) => string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'waymark-check-'));
  cpSync(DEPLOYMENT_JOURNEYS_DIR, dir, { recursive: true });
  const file = path.join(dir, 'welcome-series.ts');
  const source = readFileSync(file, 'utf8');
  const edited = edit(source);
  expect(edited).not.toBe(source);
  writeFileSync(file, edited);
  return dir;
}

const welcomeSend = "    await ctx.sendEmail('welcome', { data: { firstName: ctx.trigger.properties.firstName ?? null } });\n";

/** Every JSON payload of an exported history, decoded: where personal data would be. */
function decodedPayloads(json: string): string {
  return [...json.matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)].map((match) => Buffer.from(match[1] ?? '', 'base64').toString('utf8')).join('\n');
}

describe('waymark journeys check', () => {
  let api: TestApi;
  let worker: ChildProcess | undefined;
  let scratch: ScratchDatabase;
  const dirs: string[] = [];
  const prefix = `check-${randomUUID().slice(0, 8)}`;
  const queue = `journeys-check-${randomUUID().slice(0, 8)}`;
  /**
   * A database and a task queue of this file's own, with a worker on them: the check reads every
   * live run of the journey in the database it is given, and the other test files' welcome-series
   * runs would otherwise be counted with these 30.
   */
  const env = () => ({ ...integrationEnv(), DATABASE_URL: scratch.url, TEMPORAL_TASK_QUEUE: queue });

  beforeAll(async () => {
    scratch = await openScratchDatabase();
    worker = startWorkerProcess({ ...env(), LOG_LEVEL: 'warn' });
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, DATABASE_URL: scratch.url, TEMPORAL_TASK_QUEUE: queue });
    const users = Array.from({ length: RUNS }, (_, i) => ({ userId: `${prefix}-${i}`, userEmail: `${prefix}-${i}@waymark-test.example` }));
    const enrolled = await api.request('POST', '/v1/admin/journeys/welcome-series/enroll/batch', { token: LEGACY, body: { users } });
    expect(enrolled.body.enrolled).toBe(RUNS);
    // every run asleep in the journey's 2-day sleep (on a busy machine, starting the worker and 30
    // runs takes well over a minute)
    await eventually(
      async () =>
        (await api.deps.db.selectFrom('journeyStates').select('id').where('journeyId', '=', 'welcome-series').where('status', '=', 'waiting').execute()).length,
      (waiting) => waiting === RUNS,
      { timeoutMs: 180_000, what: `${RUNS} welcome-series runs asleep` },
    );
  }, 240_000);

  afterAll(async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await api?.close();
    if (worker !== undefined) {
      worker.kill('SIGTERM');
      await exited(worker);
    }
    await releaseTaskQueue(integrationEnv().TEMPORAL_ADDRESS, queue);
    await scratch?.release();
  });

  /** Runs the command as the CLI does (against this test's database and Temporal) and returns its exit code and --json report. */
  async function check(journeysDir: string, extra: string[] = []): Promise<{ code: number; report: JourneyCheckReport }> {
    const { code, printed } = await checkPrinting(journeysDir, ['--json', ...extra]);
    return { code, report: JSON.parse(printed) as JourneyCheckReport };
  }

  /** The command's exit code and what it printed (the human summary unless `extra` asks for --json or --markdown). */
  async function checkPrinting(journeysDir: string, extra: string[] = []): Promise<{ code: number; printed: string }> {
    dirs.push(journeysDir);
    const { DATABASE_URL, TEMPORAL_ADDRESS } = env();
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
    try {
      const code = await journeysCommand(
        'check',
        ['--journeys-dir', journeysDir, ...extra, '--database', DATABASE_URL, '--temporal', TEMPORAL_ADDRESS],
        loadCommandConfig(env()),
      );
      return { code, printed: printed.join('\n') };
    } finally {
      log.mockRestore();
    }
  }

  /** The forward diff of the one running version (the 30 runs'). */
  const forwardOf = (report: JourneyCheckReport) => {
    const [journey] = report.journeys;
    expect(journey!.forward).toHaveLength(1);
    const diff = journey!.forward[0]!;
    if (!('compared' in diff)) throw new Error(`forward diff skipped: ${diff.skipped}`);
    return diff;
  };

  it('an email inserted before the sleep breaks every sleeping run: exit 1, 30 incompatible, the diverging command, its line and the fix', async () => {
    const dir = workingTree((source) => source.replace(welcomeSend, `${welcomeSend}    await ctx.sendEmail('welcome-tips', { node: 'early-tip' });\n`));
    const { code, report } = await check(dir);
    expect(code).toBe(1);
    expect(report).toMatchObject({ replayed: RUNS, incompatible: RUNS });
    const [journey] = report.journeys;
    expect(journey).toMatchObject({ journeyId: 'welcome-series', versions: [{ replayed: RUNS, incompatible: RUNS }] });
    expect(journey!.incompatibleRuns).toHaveLength(RUNS);
    // the replayer names the command the new code issues where the history has the timer
    // (the history's next marker is the step write; the new code issues a send)
    expect(journey!.incompatibleRuns[0]!.divergence).toMatch(/^\[TMPRL1100\] Nondeterminism error: .*'recordJourneyStep'.*'sendJourneyEmail'/);
    expect(journey!.fix).toContain("patched('welcome-series-");
    // one group: all 30 diverge at the same command, issued by the inserted line (13) of the working tree's file
    expect(journey!.divergences).toHaveLength(1);
    expect(journey!.divergences[0]).toMatchObject({
      runs: RUNS,
      nodeId: 'sleep:2 days',
      point: {
        command: 2,
        recorded: 'activity recordJourneyStep',
        issued: 'activity sendJourneyEmail',
        location: `${path.join(dir, 'welcome-series.ts')}:13`,
        code: "await ctx.sendEmail('welcome-tips', { node: 'early-tip' });",
      },
    });
    console.log(`[journeys check] first divergence: ${journey!.incompatibleRuns[0]!.divergence}`);
    console.log(`[journeys check] human summary:\n${(await checkPrinting(dir)).printed}`);
  }, 180_000);

  it('the same change behind patched() keeps every run: exit 0, 0 incompatible, the 30 listed as past the patch (no early tip for them)', async () => {
    const dir = workingTree((source) =>
      `import { patched } from '@temporalio/workflow';\n${source}`.replace(
        welcomeSend,
        `${welcomeSend}    if (patched('welcome-early-tip')) await ctx.sendEmail('welcome-tips', { node: 'early-tip' });\n`,
      ),
    );
    const { code, report } = await check(dir);
    expect(report).toMatchObject({ replayed: RUNS, incompatible: 0 });
    expect(code).toBe(0);
    // as on Temporal, patched() is false for a run that passed that point before the deploy: the 30
    // sleeping runs are listed as past the patch, and their sends do not change
    expect(forwardOf(report)).toMatchObject({ compared: RUNS, changed: 0, differences: [], pastPatches: [{ patchId: 'welcome-early-tip', runs: RUNS }] });
    console.log(`[journeys check] human summary:\n${(await checkPrinting(dir)).printed}`);
  }, 180_000);

  it('the new email after the sleep behind patched(): 0 incompatible, and all 30 are listed as getting it on day 2', async () => {
    const nudge = "      await ctx.sendEmail('welcome-getting-started', { node: 'nudge' });\n";
    const { code, report } = await check(
      workingTree((source) =>
        `import { patched } from '@temporalio/workflow';\n${source}`.replace(
          nudge,
          `${nudge}      if (patched('welcome-late-tip')) await ctx.sendEmail('welcome-tips', { node: 'late-tip' });\n`,
        ),
      ),
    );
    expect(report).toMatchObject({ replayed: RUNS, incompatible: 0 });
    expect(code).toBe(0);
    expect(forwardOf(report)).toMatchObject({
      compared: RUNS,
      changed: RUNS,
      differences: [{ change: 'added', summary: 'will also get `welcome-tips` on day 2', runs: RUNS }],
      pastPatches: [],
    });
  }, 180_000);

  it('a different template after the sleep replays: 0 incompatible, and the differences table names that template for all 30', async () => {
    const dir = workingTree((source) =>
      source.replace("await ctx.sendEmail('welcome-getting-started', { node: 'nudge' });", "await ctx.sendEmail('welcome-tips', { node: 'nudge' });"),
    );
    const { code, report } = await check(dir);
    expect(report).toMatchObject({ replayed: RUNS, incompatible: 0, compared: RUNS, changed: RUNS });
    expect(code).toBe(0);
    const diff = forwardOf(report);
    expect(diff.differences).toEqual([
      {
        change: 'replaced',
        summary: 'will get `welcome-tips` on day 2 instead of `welcome-getting-started`',
        runs: RUNS,
        examples: [expect.stringMatching(new RegExp(`^${prefix}-`)), expect.any(String), expect.any(String)],
      },
    ]);
    // --fail-on-diff makes a changed send fail the check too
    expect((await check(dir, ['--fail-on-diff'])).code).toBe(1);
    const markdown = await checkPrinting(dir, ['--markdown']);
    expect(markdown.printed).toContain(
      `| \`welcome-series\` | \`v${diff.version}\` | ${RUNS} | will get \`welcome-tips\` on day 2 instead of \`welcome-getting-started\` |`,
    );
    console.log(`[journeys check] human summary:\n${(await checkPrinting(dir)).printed}\n[journeys check] markdown:\n${markdown.printed}`);
  }, 180_000);

  /** Runs `export-histories` for welcome-series into a new folder: the folder and what the command printed. */
  async function exportHistoriesOf(limit: number): Promise<{ outDir: string; printed: string }> {
    const outDir = mkdtempSync(path.join(tmpdir(), 'waymark-histories-'));
    dirs.push(outDir);
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
    try {
      const code = await journeysCommand(
        'export-histories',
        ['--journey', 'welcome-series', '--limit', String(limit), '--out', outDir, '--database', scratch.url],
        loadCommandConfig(env()),
      );
      expect(code).toBe(0);
    } finally {
      log.mockRestore();
    }
    return { outDir, printed: printed.join('\n') };
  }

  it('export-histories writes live runs with personal data replaced; they replay on the current code and fail on an incompatible change', async () => {
    const { outDir } = await exportHistoriesOf(5);
    const files = readdirSync(outDir).map((file) => path.join(outDir, file));
    expect(files).toHaveLength(5);
    const decoded = files.map((file) => decodedPayloads(readFileSync(file, 'utf8'))).join('\n');
    expect(decoded).toMatch(/"userEmail":"person-\d+@example\.invalid"/);
    expect(decoded).not.toMatch(new RegExp(`${prefix}-\\d+`));

    const { History } = temporal.api.history.v1;
    const histories = files.map((file) => ({ workflowId: path.basename(file), history: History.fromObject(JSON.parse(readFileSync(file, 'utf8'))) }));
    const replay = async (journeysDir: string) => {
      const failures: string[] = [];
      const workflowBundle = await workingTreeWorkflowBundle(journeysDir);
      for await (const result of Worker.runReplayHistories({ workflowBundle }, histories)) if (result.error !== undefined) failures.push(result.workflowId);
      return failures;
    };
    expect(await replay(DEPLOYMENT_JOURNEYS_DIR)).toEqual([]);
    const broken = workingTree((source) => source.replace(welcomeSend, `${welcomeSend}    await ctx.sendEmail('welcome-tips', { node: 'early-tip' });\n`));
    dirs.push(broken);
    expect(await replay(broken)).toHaveLength(5);
  }, 180_000);

  it('export-histories skips and names a live run whose history Temporal no longer has, and exports the others', async () => {
    // the oldest live row, so it is within --limit
    const workflowId = `journey:welcome-series:${prefix}-export-gone:${randomUUID()}`;
    await api.deps.db
      .insertInto('journeyStates')
      .values({
        journeyId: 'welcome-series',
        userId: `${prefix}-export-gone`,
        userEmail: `${prefix}-export-gone@waymark-test.example`,
        status: 'waiting',
        workflowId,
        workflowRunId: null,
        context: {},
        errorMessage: null,
        createdAt: new Date(Date.now() - 86_400_000),
        updatedAt: new Date(),
        journeyVersion: null,
      })
      .execute();
    const { outDir, printed } = await exportHistoriesOf(3).finally(() =>
      api.deps.db.deleteFrom('journeyStates').where('workflowId', '=', workflowId).execute(),
    );
    // the next live run takes the skipped one's place
    expect(readdirSync(outDir)).toHaveLength(3);
    expect(printed).toContain(`skipped 1 run whose history Temporal no longer has: ${workflowId}`);
  }, 180_000);

  it('the checkout itself has nothing to replay: every run is on its version', async () => {
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
    try {
      expect(await journeysCommand('check', ['--database', scratch.url], loadCommandConfig(env()))).toBe(0);
    } finally {
      log.mockRestore();
    }
    expect(printed.join('\n')).toContain('nothing to replay');
  });

  it('a live run whose history Temporal no longer has is reported as not replayed, and the check goes on', async () => {
    // a row that outlived its history (namespace retention, a run of another cluster)
    await api.deps.db
      .insertInto('journeyStates')
      .values({
        journeyId: 'welcome-series',
        userId: `${prefix}-gone`,
        userEmail: `${prefix}-gone@waymark-test.example`,
        status: 'waiting',
        workflowId: `journey:welcome-series:${prefix}-gone:${randomUUID()}`,
        workflowRunId: null,
        context: {},
        errorMessage: null,
        createdAt: new Date(),
        updatedAt: new Date(),
        journeyVersion: null,
      })
      .execute();
    const unchanged = mkdtempSync(path.join(tmpdir(), 'waymark-check-'));
    cpSync(DEPLOYMENT_JOURNEYS_DIR, unchanged, { recursive: true });
    const { code, report } = await check(unchanged);
    expect(report).toMatchObject({ replayed: 0, incompatible: 0, missing: 1 });
    expect(report.journeys[0]!.missingRuns).toEqual([expect.stringContaining(`${prefix}-gone`)]);
    expect(code).toBe(0);
  }, 180_000);
});
