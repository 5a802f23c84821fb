import type { JourneyCheckReport } from '@waymark/temporal/journey-check/check-journeys';
import { describe, expect, it } from 'vitest';
import { formatCheck, formatCheckMarkdown } from './journeys-check';

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
const broken: JourneyCheckReport = {
  journeysDir: '/repo/journeys/',
  replayed: 9,
  incompatible: 7,
  missing: 0,
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
      fix: "put the change behind a patch marker (`if (patched('welcome-series-<change>'))`)",
    },
  ],
};

describe('journeys check report', () => {
  it('the human summary names versions, example runs with their divergence, and the fix', () => {
    const text = formatCheck(broken);
    expect(text).toContain('journeys check: 9 live runs replayed on /repo/journeys/, 7 incompatible');
    expect(text).toContain('welcome-series (working tree v5b07e2)');
    expect(text).toContain('  v3a9f1c: 7 replayed, 7 incompatible');
    expect(text).toContain('  unknown: 2 replayed, all compatible');
    expect(text).toContain(`    ✗ u-0 at sleep:2 days (journey:welcome-series:u-0:e): ${divergence}`);
    expect(text).toContain('    … and 2 more (--json lists all)');
    expect(text).toContain("  fix: put the change behind a patch marker (`if (patched('welcome-series-<change>'))`)");
    expect(formatCheck({ journeysDir: '/repo/journeys/', replayed: 0, incompatible: 0, missing: 0, journeys: [] })).toContain('nothing to replay');
  });

  it('names the live runs it could not replay because Temporal no longer has their history', () => {
    const gone: JourneyCheckReport = {
      journeysDir: '/repo/journeys/',
      replayed: 2,
      incompatible: 0,
      missing: 1,
      journeys: [
        {
          journeyId: 'welcome-series',
          workingVersion: '5b07e2',
          versions: [{ version: null, replayed: 2, incompatible: 0, missing: 1 }],
          incompatibleRuns: [],
          missingRuns: ['journey:welcome-series:u-gone:e'],
        },
      ],
    };
    const text = formatCheck(gone);
    expect(text).toContain('  unknown: 2 replayed, all compatible, 1 not replayed (Temporal has no history for them)');
    expect(text).toContain('    ? no history: journey:welcome-series:u-gone:e');
  });

  it('the Markdown is a table per version and the first divergence, for a pull-request comment', () => {
    const markdown = formatCheckMarkdown(broken);
    expect(markdown).toContain('### Journey check: ❌ 7 of 9 live runs incompatible');
    expect(markdown).toContain('| `welcome-series` | `v3a9f1c` | `v5b07e2` | 7 | 7 |');
    expect(markdown).toContain('| `welcome-series` | `unknown` | `v5b07e2` | 2 | 0 |');
    expect(markdown).toContain(`First divergence (e.g. \`u-0\` at \`sleep:2 days\`): \`${divergence}\``);
  });
});
