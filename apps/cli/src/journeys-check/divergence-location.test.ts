import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LiveRunSubject } from '@waymark/core/journeys/live-run-subjects';
import { afterAll, describe, expect, it } from 'vitest';
import { DEPLOYMENT_JOURNEYS_DIR } from '@waymark/runtime/runtime';
import { locateDivergence, recordedCommands } from './divergence-location';
import { loadJourneysFrom, type LoadedJourneys } from './load-journeys';

const localActivity = (type: string) => ({
  markerRecordedEventAttributes: {
    markerName: 'core_local_activity',
    details: { data: { payloads: [{ data: Buffer.from(JSON.stringify({ seq: 1, activity_type: type })) }] } },
  },
});
/** A welcome-series run asleep: entered, welcomed, step written, timer started. */
const asleep = {
  events: [
    { workflowExecutionStartedEventAttributes: {} },
    localActivity('enterJourney'),
    localActivity('sendJourneyEmail'),
    localActivity('recordJourneyStep'),
    { timerStartedEventAttributes: { timerId: '1' } },
  ],
};
const welcomeSend = "    await ctx.sendEmail('welcome', { data: { firstName: ctx.trigger.properties.firstName ?? null } });\n";

describe('locateDivergence', () => {
  const now = Date.UTC(2026, 10, 26, 12);
  const subject: LiveRunSubject = {
    workflowId: 'journey:welcome-series:u-1:e',
    version: 'abc123',
    nodeId: 'sleep:2 days',
    userId: 'u-1',
    email: 'u-1@example.com',
    trigger: { at: new Date(now - 3_600_000), properties: {} },
    earlier: [],
    later: [],
  };
  const cleanup: (() => void)[] = [];
  afterAll(() => cleanup.forEach((release) => release()));

  async function workingTree(edit: (source: string) => string): Promise<LoadedJourneys> {
    const dir = mkdtempSync(path.join(tmpdir(), 'waymark-divergence-'));
    cpSync(DEPLOYMENT_JOURNEYS_DIR, dir, { recursive: true });
    const file = path.join(dir, 'welcome-series.ts');
    writeFileSync(file, edit(readFileSync(file, 'utf8')));
    const loaded = await loadJourneysFrom(dir);
    cleanup.push(loaded.release, () => rmSync(dir, { recursive: true, force: true }));
    return loaded;
  }
  const locate = (loaded: LoadedJourneys) =>
    locateDivergence(
      loaded,
      loaded.journeys.find((journey) => journey.id === 'welcome-series')!,
      subject,
      asleep,
      {
        cutoff: new Date(now),
        recorded: new Set(),
      },
    );

  it('reads the commands of a history: activities (local ones as markers) and timers', () => {
    expect(recordedCommands(asleep)).toEqual(['activity enterJourney', 'activity sendJourneyEmail', 'activity recordJourneyStep', 'timer']);
  });

  it('names the first command the working tree issues differently, and the journey line that issues it', async () => {
    const loaded = await workingTree((source) =>
      source.replace(welcomeSend, `${welcomeSend}    await ctx.sendEmail('welcome-tips', { node: 'early-tip' });\n`),
    );
    expect(await locate(loaded)).toEqual({
      command: 3,
      recorded: 'activity recordJourneyStep',
      issued: 'activity sendJourneyEmail',
      location: `${path.join(loaded.dir, 'welcome-series.ts')}:13`,
      code: "await ctx.sendEmail('welcome-tips', { node: 'early-tip' });",
    });
  });

  it('a removed step: the history has a command the working tree no longer issues', async () => {
    const loaded = await workingTree((source) => source.replace("    await ctx.sleep('2 days');\n", ''));
    expect(await locate(loaded)).toMatchObject({ command: 3, recorded: 'activity recordJourneyStep', issued: 'activity hasJourneyEvent' });
  });

  it('the same code does not diverge', async () => {
    expect(await locate(await workingTree((source) => `${source}\n`))).toBeUndefined();
  });
});
