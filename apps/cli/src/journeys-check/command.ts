import path from 'node:path';
import { parseArgs } from 'node:util';
import type { CommandConfig } from '@waymark/core/config/config';
import { createDatabase } from '@waymark/core/db/database';
import { checkJourneys, type DivergenceGroup, type JourneyCheck, type JourneyCheckReport, type VersionForwardDiff } from './check-journeys';
import { exportHistories } from './export-histories';
import { connectTemporalClient } from '@waymark/runtime/client';
import { DEPLOYMENT_JOURNEYS_DIR } from '@waymark/runtime/runtime';
import { parseDuration } from '@waymark/journey';
import { allSecretProps } from '@waymark/email/secret-props';

/**
 * Runs replayed per running version unless --sample says otherwise ('all' replays every run): a
 * version's runs at one step replay alike, and the forward diff still covers every run of a
 * version none of whose sampled runs failed (docs/journeys.md, "Changing a live journey").
 */
const DEFAULT_SAMPLE = 200;

const usage = `usage: waymark journeys check [--journeys-dir DIR] [--base REF|DIR] [--journey ID] [--sample N] [--horizon 90d] [--replay-only] [--fail-on-diff]
                              [--json] [--markdown] [--database URL] [--temporal HOST:PORT] [--namespace NS]
       waymark journeys export-histories --journey ID [--limit 50] [--out DIR] [--database URL] [--temporal HOST:PORT] [--namespace NS]`;

/**
 * `waymark journeys check`: exit 0 when every replayed run is compatible, 1 when any is not (or,
 * with --fail-on-diff, when a compatible run would be sent something different), 2 on bad arguments.
 * `waymark journeys export-histories`: live runs' histories as replay fixtures (journeys/__histories__/<id>/).
 */
export async function journeysCommand(sub: string | undefined, args: string[], config: CommandConfig): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'journeys-dir': { type: 'string', default: DEPLOYMENT_JOURNEYS_DIR },
      journey: { type: 'string' },
      sample: { type: 'string', default: String(DEFAULT_SAMPLE) },
      base: { type: 'string' },
      horizon: { type: 'string', default: '90d' },
      'replay-only': { type: 'boolean' },
      'fail-on-diff': { type: 'boolean' },
      json: { type: 'boolean' },
      markdown: { type: 'boolean' },
      database: { type: 'string', default: config.databaseUrl },
      temporal: { type: 'string', default: config.temporal.address },
      namespace: { type: 'string', default: config.temporal.namespace },
      limit: { type: 'string', default: '50' },
      out: { type: 'string' },
    },
  });
  const sample = values.sample === 'all' ? undefined : Number(values.sample);
  const horizonMs = parseDuration(values.horizon);
  const limit = Number(values.limit);
  const valid =
    sub === 'check'
      ? (sample === undefined || (Number.isInteger(sample) && sample >= 1)) && horizonMs !== undefined && horizonMs > 0
      : sub === 'export-histories' && values.journey !== undefined && Number.isInteger(limit) && limit >= 1;
  if (!valid) {
    console.error(usage);
    return 2;
  }
  const db = createDatabase({ connectionString: values.database, max: 2, applicationName: 'waymark-journeys-check' });
  const temporal = await connectTemporalClient({ ...config.temporal, address: values.temporal, namespace: values.namespace }, config.encryptionKeys);
  try {
    if (sub === 'export-histories' && values.journey !== undefined) {
      const outDir = values.out ?? path.join(DEPLOYMENT_JOURNEYS_DIR, '__histories__', values.journey);
      const { files, skipped } = await exportHistories(
        { db, client: temporal.client, encryptionKeys: config.encryptionKeys },
        { journeyId: values.journey, limit, outDir, secretKeys: await deploymentSecretProps() },
      );
      console.log(`journeys export-histories: ${files.length} histories of live '${values.journey}' runs → ${outDir} (personal data replaced)`);
      if (skipped.length > 0)
        console.log(`  skipped ${skipped.length} run${skipped.length === 1 ? '' : 's'} whose history Temporal no longer has: ${skipped.join(', ')}`);
      return 0;
    }
    const report = await checkJourneys(
      { db, client: temporal.client, encryptionKeys: config.encryptionKeys },
      {
        journeysDir: values['journeys-dir'],
        ...(sample === undefined ? {} : { sample }),
        ...(values.base === undefined ? {} : { base: values.base }),
        ...(horizonMs === undefined ? {} : { horizonMs }),
        forward: values['replay-only'] !== true,
        ...(values.journey === undefined ? {} : { journeyId: values.journey }),
      },
    );
    console.log(values.json === true ? JSON.stringify(report, null, 2) : values.markdown === true ? formatCheckMarkdown(report) : formatCheck(report));
    return report.incompatible > 0 || (values['fail-on-diff'] === true && report.changed > 0) ? 1 : 0;
  } finally {
    await Promise.all([db.destroy(), temporal.close()]);
  }
}

/** The props this deployment's templates declare secret (docs/email.md, "Secret props"): an export replaces their values. */
async function deploymentSecretProps(): Promise<Set<string>> {
  const { emailTemplates } = await import('@waymark/journeys/templates/registry');
  return allSecretProps(emailTemplates);
}

const version = (value: string | null) => (value === null ? 'unknown' : `v${value}`);
/** example runs shown per journey; --json lists them all */
const EXAMPLES = 5;
const count = (n: number) => n.toLocaleString('en-US');

type ForwardResult = Extract<VersionForwardDiff, { compared: number }>;
const diffed = (journey: JourneyCheck) => journey.forward.filter((diff): diff is ForwardResult => 'compared' in diff);

function where(group: DivergenceGroup): string {
  const point = group.point;
  if (point === undefined) return '';
  const what =
    `command ${point.command}: the history has ${point.recorded ?? 'no more commands'}, the working tree issues ${point.issued ?? 'none'}` +
    (point.location === undefined ? '' : ` at ${point.location}${point.code === undefined ? '' : ` \`${point.code}\``}`);
  return what;
}

export function formatCheck(report: JourneyCheckReport): string {
  if (report.journeys.length === 0) return 'journeys check: every live run is on the working tree’s version of its journey; nothing to replay';
  const lines = [
    `journeys check: ${count(report.replayed)} live runs replayed on ${report.journeysDir}, ${count(report.incompatible)} incompatible; ` +
      `${count(report.compared)} compatible runs run forward to ${report.until.slice(0, 10)}, ${count(report.changed)} would be sent something different`,
  ];
  for (const journey of report.journeys) {
    lines.push('', `${journey.journeyId} (working tree ${version(journey.workingVersion)})`);
    for (const entry of journey.versions) {
      lines.push(
        `  ${version(entry.version)}: ${entry.replayed} replayed, ${entry.incompatible === 0 ? 'all compatible' : `${entry.incompatible} incompatible`}` +
          (entry.missing === 0 ? '' : `, ${entry.missing} not replayed (Temporal has no history for them)`),
      );
    }
    if (journey.missingRuns.length > 0)
      lines.push(`    ? no history: ${journey.missingRuns.slice(0, EXAMPLES).join(', ')}${journey.missingRuns.length > EXAMPLES ? ', …' : ''}`);
    for (const group of journey.divergences) {
      lines.push(`  ✗ ${count(group.runs)} ${version(group.version)} runs at ${group.nodeId} diverge: ${group.divergence}`);
      if (group.point !== undefined) lines.push(`      ${where(group)}`);
    }
    for (const run of journey.incompatibleRuns.slice(0, EXAMPLES)) lines.push(`    ✗ ${run.userId} at ${run.nodeId} (${run.workflowId})`);
    if (journey.incompatibleRuns.length > EXAMPLES) lines.push(`    … and ${journey.incompatibleRuns.length - EXAMPLES} more (--json lists all)`);
    if (journey.fix !== undefined) lines.push(`  fix: ${journey.fix}`);
    for (const diff of journey.forward) {
      if (!('compared' in diff)) {
        lines.push(`  forward diff of ${version(diff.version)} skipped: ${diff.skipped}`);
        continue;
      }
      lines.push(`  forward diff of ${version(diff.version)} against ${diff.base}: ${count(diff.compared)} runs, ${count(diff.changed)} with different sends`);
      for (const difference of diff.differences)
        lines.push(`    ${count(difference.runs).padStart(7)} ${difference.summary}   e.g. ${difference.examples.join(', ')}`);
      for (const patch of diff.pastPatches)
        lines.push(`    ${count(patch.runs).padStart(7)} are past patched('${patch.patchId}') and keep the old path there; new enrollments take the new one`);
    }
  }
  return lines.join('\n');
}

/** For a pull-request comment. */
export function formatCheckMarkdown(report: JourneyCheckReport): string {
  const ok = report.incompatible === 0;
  const lines = [
    `### Journey check: ${ok ? '✅' : '❌'} ${report.incompatible} of ${report.replayed} live runs incompatible, ${report.changed} of ${report.compared} compatible runs sent something different`,
    '',
    '| Journey | Running version | Working tree | Replayed | Incompatible |',
    '| --- | --- | --- | ---: | ---: |',
  ];
  for (const journey of report.journeys) {
    for (const entry of journey.versions) {
      lines.push(
        `| \`${journey.journeyId}\` | \`${version(entry.version)}\` | \`${version(journey.workingVersion)}\` | ${entry.replayed} | ${entry.incompatible} |`,
      );
    }
  }
  for (const journey of report.journeys.filter((candidate) => candidate.incompatibleRuns.length > 0)) {
    const first = journey.incompatibleRuns[0];
    lines.push('', `**${journey.journeyId}**: ${journey.incompatibleRuns.length} runs would fail to replay.`);
    if (first !== undefined) lines.push(`First divergence (e.g. \`${first.userId}\` at \`${first.nodeId}\`): \`${first.divergence}\``);
    for (const group of journey.divergences.filter((candidate) => candidate.point !== undefined))
      lines.push(`- ${group.runs} at \`${group.nodeId}\`: ${where(group)}`);
    if (journey.fix !== undefined) lines.push('', `Fix: ${journey.fix}`);
  }
  const differences = report.journeys.flatMap((journey) =>
    diffed(journey).flatMap((diff) => diff.differences.map((difference) => ({ journey: journey.journeyId, diff, difference }))),
  );
  if (differences.length > 0) {
    lines.push(
      '',
      '#### What compatible runs would be sent differently',
      '',
      '| Journey | Version | People | Change | e.g. |',
      '| --- | --- | ---: | --- | --- |',
    );
    for (const { journey, diff, difference } of differences)
      lines.push(
        `| \`${journey}\` | \`${version(diff.version)}\` | ${count(difference.runs)} | ${difference.summary} | ${difference.examples.map((id) => `\`${id}\``).join(', ')} |`,
      );
  }
  for (const journey of report.journeys) {
    for (const diff of diffed(journey))
      for (const patch of diff.pastPatches)
        lines.push(
          '',
          `\`${journey.journeyId}\` ${version(diff.version)}: ${count(patch.runs)} runs are past \`patched('${patch.patchId}')\` and keep the old path there.`,
        );
    for (const diff of journey.forward)
      if (!('compared' in diff)) lines.push('', `\`${journey.journeyId}\` ${version(diff.version)}: forward diff skipped (${diff.skipped}).`);
  }
  return lines.join('\n');
}
