import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LiveRunSubject } from '@waymark/core/journeys/live-run-subjects';
import type { Journey } from '@waymark/journey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPLOYMENT_JOURNEYS_DIR } from '@waymark/runtime/runtime';
import { compareFutures, diffForward } from './forward-diff';
import { loadJourneysFrom, type LoadedJourneys } from './load-journeys';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const welcomeSend = "    await ctx.sendEmail('welcome', { data: { firstName: ctx.trigger.properties.firstName ?? null } });\n";
const nudge = "await ctx.sendEmail('welcome-getting-started', { node: 'nudge' });";

describe('compareFutures', () => {
  const send = (templateKey: string, day: number) => ({ templateKey, node: templateKey, at: day * DAY });
  const waiting = { status: 'waiting' };

  it('pairs an inserted email as one addition, a swapped template as a replacement, a moved one by its days', () => {
    expect(compareFutures({ ...waiting, sends: [send('a', 2), send('b', 4)] }, { ...waiting, sends: [send('x', 1), send('a', 2), send('b', 5)] }, 0)).toEqual([
      { change: 'added', summary: 'will also get `x` on day 1' },
      { change: 'moved', summary: 'will get `b` on day 5 instead of day 4' },
    ]);
    expect(compareFutures({ ...waiting, sends: [send('a', 2)] }, { ...waiting, sends: [send('c', 3)] }, 0)).toEqual([
      { change: 'replaced', summary: 'will get `c` on day 3 instead of `a` (day 2)' },
    ]);
    expect(compareFutures({ ...waiting, sends: [send('a', 2)] }, { ...waiting, sends: [] }, 0)).toEqual([
      { change: 'removed', summary: 'will no longer get `a` (day 2)' },
    ]);
  });

  it('names a run that ends earlier or in another state, and hours off a whole day', () => {
    const sends = [{ templateKey: 'a', node: 'a', at: 2 * DAY + 5 * HOUR }];
    expect(compareFutures({ sends: [], status: 'exited', endedAt: 9 * DAY }, { sends, status: 'exited', endedAt: 3 * DAY }, 0)).toEqual([
      { change: 'added', summary: 'will also get `a` on day 2 +5h' },
      { change: 'ends', summary: 'will exit earlier (day 3 instead of day 9)' },
    ]);
    expect(compareFutures({ sends: [], status: 'waiting' }, { sends: [], status: 'completed', endedAt: DAY }, 0)).toEqual([
      { change: 'ends', summary: 'will end completed instead of waiting by the horizon' },
    ]);
  });
});

describe('diffForward on the welcome series', () => {
  const now = Date.UTC(2026, 10, 26, 12);
  const subjects: LiveRunSubject[] = Array.from({ length: 4 }, (_, i) => ({
    workflowId: `journey:welcome-series:u-${i}:e`,
    version: 'abc123',
    nodeId: 'sleep:2 days',
    userId: `u-${i}`,
    email: `u-${i}@example.com`,
    trigger: { at: new Date(now - HOUR), properties: {} },
    earlier: [],
    // u-3 created a project yesterday: the journey sends it tips instead of the nudge
    later: i === 3 ? [{ name: 'project.created', at: new Date(now - HOUR / 2), properties: {} }] : [],
  }));
  const options = { cutoff: new Date(now), until: new Date(now + 90 * DAY), recorded: new Set<string>() };
  const loaded: LoadedJourneys[] = [];
  const dirs: string[] = [];
  let running: Journey;

  async function edited(edit: (source: string) => string): Promise<Journey> {
    const dir = mkdtempSync(path.join(tmpdir(), 'waymark-forward-'));
    dirs.push(dir);
    cpSync(DEPLOYMENT_JOURNEYS_DIR, dir, { recursive: true });
    const file = path.join(dir, 'welcome-series.ts');
    writeFileSync(file, edit(readFileSync(file, 'utf8')));
    const journeys = await loadJourneysFrom(dir);
    loaded.push(journeys);
    return journeys.journeys.find((journey) => journey.id === 'welcome-series')!;
  }

  beforeAll(async () => {
    const journeys = await loadJourneysFrom(DEPLOYMENT_JOURNEYS_DIR);
    loaded.push(journeys);
    running = journeys.journeys.find((journey) => journey.id === 'welcome-series')!;
  });
  afterAll(() => {
    for (const journeys of loaded) journeys.release();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('the same code changes nothing', async () => {
    expect(await diffForward(running, running, subjects, options)).toEqual({ compared: 4, changed: 0, differences: [], pastPatches: [] });
  });

  it('a template swapped after the sleep: the people still asleep get the new one on day 2, with examples', async () => {
    const after = await edited((source) => source.replace(nudge, "await ctx.sendEmail('welcome-tips', { node: 'nudge' });"));
    expect(await diffForward(running, after, subjects, options)).toEqual({
      compared: 4,
      changed: 3,
      differences: [
        { change: 'replaced', summary: 'will get `welcome-tips` on day 2 instead of `welcome-getting-started`', runs: 3, examples: ['u-0', 'u-1', 'u-2'] },
      ],
      pastPatches: [],
    });
  });

  it('patched() before the sleep is false for runs already past it, true after the cutoff', async () => {
    const after = await edited((source) =>
      `import { patched } from '@temporalio/workflow';\n${source}`
        .replace(welcomeSend, `${welcomeSend}    if (patched('early-tip')) await ctx.sendEmail('welcome-tips', { node: 'early-tip' });\n`)
        .replace(nudge, `${nudge}\n      if (patched('late-tip')) await ctx.sendEmail('welcome-tips', { node: 'late-tip' });`),
    );
    expect(await diffForward(running, after, subjects, options)).toEqual({
      compared: 4,
      changed: 3,
      differences: [{ change: 'added', summary: 'will also get `welcome-tips` on day 2', runs: 3, examples: ['u-0', 'u-1', 'u-2'] }],
      pastPatches: [{ patchId: 'early-tip', runs: 4 }],
    });
    // a run whose history recorded the marker took the new path when it passed there
    expect((await diffForward(running, after, subjects, { ...options, recorded: new Set(['early-tip']) })).pastPatches).toEqual([]);
  });

  it('a longer sleep: the nudge moves and the runs complete later', async () => {
    const after = await edited((source) => source.replace("await ctx.sleep('2 days');", "await ctx.sleep('3 days');"));
    const diff = await diffForward(running, after, subjects, options);
    expect(diff.differences.map((difference) => [difference.runs, difference.summary])).toEqual([
      [4, 'will complete later (day 3 instead of day 2)'],
      [3, 'will get `welcome-getting-started` on day 3 instead of day 2'],
      [1, 'will get `welcome-tips` on day 3 instead of day 2'],
    ]);
  });
});
