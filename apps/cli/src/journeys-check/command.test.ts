import type { JourneyCheckReport } from './check-journeys';
import { describe, expect, it } from 'vitest';
import { formatCheck, formatCheckMarkdown } from './command';

const divergence =
  "[TMPRL1100] Nondeterminism error: Activity type of recorded marker 'recordJourneyStep' does not match activity type of local activity command 'sendJourneyEmail'";
const runs = Array.from({ length: 7 }, (_, i) => ({
  userId: `u-${i}`,
  workflowId: `journey:welcome-series:u-${i}:e`,
  runId: 'r',
  version: '3a9f1c',
  nodeId: 'sleep:2 days',
  divergence,
}));
const window = { at: '2026-11-26T07:00:00.000Z', until: '2027-02-24T07:00:00.000Z' };
const broken: JourneyCheckReport = {
  journeysDir: '/repo/journeys/',
  replayed: 9,
  incompatible: 7,
  missing: 0,
  compared: 2,
  changed: 2,
  ...window,
  journeys: [
    {
      journeyId: 'welcome-series',
      workingVersion: '5b07e2',
      versions: [
        { version: '3a9f1c', replayed: 7, incompatible: 7, missing: 0 },
        { version: null, replayed: 2, incompatible: 0, missing: 0 },
      ],
      incompatibleRuns: runs,
      missingRuns: [],
      divergences: [
        {
          version: '3a9f1c',
          nodeId: 'sleep:2 days',
          divergence,
          runs: 7,
          example: { userId: 'u-0', workflowId: 'journey:welcome-series:u-0:e' },
          point: {
            command: 3,
            recorded: 'activity recordJourneyStep',
            issued: 'activity sendJourneyEmail',
            location: 'journeys/welcome-series.ts:13',
            code: "await ctx.sendEmail('welcome-tips', { node: 'early-tip' });",
          },
        },
      ],
      fix: "put the change behind a patch marker (`if (patched('welcome-series-<change>'))`)",
      forward: [
        { version: '3a9f1c', base: 'git HEAD', compared: 0, changed: 0, differences: [], pastPatches: [] },
        {
          version: null,
          base: 'git HEAD',
          compared: 2,
          changed: 2,
          differences: [
            {
              change: 'replaced',
              summary: 'will get `welcome-tips` on day 2 instead of `welcome-getting-started`',
              runs: 2,
              examples: ['u-7', 'u-8'],
            },
          ],
          pastPatches: [{ patchId: 'welcome-early-tip', runs: 2 }],
        },
      ],
    },
  ],
};

describe('journeys check report', () => {
  it('the human summary names versions, example runs with their divergence, and the fix', () => {
    const text = formatCheck(broken);
    expect(text).toContain(
      'journeys check: 9 live runs replayed on /repo/journeys/, 7 incompatible; 2 compatible runs run forward to 2027-02-24, 2 would be sent something different',
    );
    expect(text).toContain('welcome-series (working tree v5b07e2)');
    expect(text).toContain('  v3a9f1c: 7 replayed, 7 incompatible');
    expect(text).toContain('  unknown: 2 replayed, all compatible');
    expect(text).toContain(`  ✗ 7 v3a9f1c runs at sleep:2 days diverge: ${divergence}`);
    expect(text).toContain(
      "      command 3: the history has activity recordJourneyStep, the working tree issues activity sendJourneyEmail at journeys/welcome-series.ts:13 `await ctx.sendEmail('welcome-tips', { node: 'early-tip' });`",
    );
    expect(text).toContain('    ✗ u-0 at sleep:2 days (journey:welcome-series:u-0:e)');
    expect(text).toContain('    … and 2 more (--json lists all)');
    expect(text).toContain("  fix: put the change behind a patch marker (`if (patched('welcome-series-<change>'))`)");
    expect(
      formatCheck({ journeysDir: '/repo/journeys/', replayed: 0, incompatible: 0, missing: 0, compared: 0, changed: 0, ...window, journeys: [] }),
    ).toContain('nothing to replay');
  });

  it('the human summary lists what compatible runs would be sent differently, with example users, and the patches they are past', () => {
    const text = formatCheck(broken);
    expect(text).toContain('  forward diff of unknown against git HEAD: 2 runs, 2 with different sends');
    expect(text).toContain('          2 will get `welcome-tips` on day 2 instead of `welcome-getting-started`   e.g. u-7, u-8');
    expect(text).toContain("          2 are past patched('welcome-early-tip') and keep the old path there; new enrollments take the new one");
    const skipped = formatCheck({
      ...broken,
      journeys: [
        { ...broken.journeys[0]!, forward: [{ version: '3a9f1c', base: 'git HEAD', skipped: 'git HEAD has v5b07e2 of welcome-series, not v3a9f1c' }] },
      ],
    });
    expect(skipped).toContain('  forward diff of v3a9f1c skipped: git HEAD has v5b07e2 of welcome-series, not v3a9f1c');
  });

  it('names the live runs it could not replay because Temporal no longer has their history', () => {
    const gone: JourneyCheckReport = {
      journeysDir: '/repo/journeys/',
      replayed: 2,
      incompatible: 0,
      missing: 1,
      compared: 0,
      changed: 0,
      ...window,
      journeys: [
        {
          journeyId: 'welcome-series',
          workingVersion: '5b07e2',
          versions: [{ version: null, replayed: 2, incompatible: 0, missing: 1 }],
          incompatibleRuns: [],
          missingRuns: ['journey:welcome-series:u-gone:e'],
          divergences: [],
          forward: [],
        },
      ],
    };
    const text = formatCheck(gone);
    expect(text).toContain('  unknown: 2 replayed, all compatible, 1 not replayed (Temporal has no history for them)');
    expect(text).toContain('    ? no history: journey:welcome-series:u-gone:e');
  });

  it('the Markdown is a table per version and the first divergence, for a pull-request comment', () => {
    const markdown = formatCheckMarkdown(broken);
    expect(markdown).toContain('### Journey check: ❌ 7 of 9 live runs incompatible, 2 of 2 compatible runs sent something different');
    expect(markdown).toContain('| `welcome-series` | `v3a9f1c` | `v5b07e2` | 7 | 7 |');
    expect(markdown).toContain('| `welcome-series` | `unknown` | `v5b07e2` | 2 | 0 |');
    expect(markdown).toContain(`First divergence (e.g. \`u-0\` at \`sleep:2 days\`): \`${divergence}\``);
    expect(markdown).toContain(
      '- 7 at `sleep:2 days`: command 3: the history has activity recordJourneyStep, the working tree issues activity sendJourneyEmail at journeys/welcome-series.ts:13',
    );
    expect(markdown).toContain('| `welcome-series` | `unknown` | 2 | will get `welcome-tips` on day 2 instead of `welcome-getting-started` | `u-7`, `u-8` |');
  });
});
