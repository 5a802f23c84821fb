import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import type { CommandConfig } from '@waymark/core/config/config';
import { createDatabase } from '@waymark/core/db/database';
import { temporalConnectionOptions } from '@waymark/temporal/connection';
import { checkJourneys, type JourneyCheckReport } from '@waymark/temporal/journey-check/check-journeys';
import { exportHistories } from '@waymark/temporal/journey-check/export-histories';
import { DEPLOYMENT_JOURNEYS_DIR } from '@waymark/temporal/runtime';

const usage = `usage: waymark journeys check [--journeys-dir DIR] [--journey ID] [--sample N] [--json] [--markdown] [--database URL] [--temporal HOST:PORT] [--namespace NS]
       waymark journeys export-histories --journey ID [--limit 50] [--out DIR] [--database URL] [--temporal HOST:PORT] [--namespace NS]`;

/**
 * `waymark journeys check`: exit 0 when every replayed run is compatible, 1 when any is not, 2 on bad arguments.
 * `waymark journeys export-histories`: live runs' histories as replay fixtures (journeys/__histories__/<id>/).
 */
export async function journeysCommand(sub: string | undefined, args: string[], config: CommandConfig): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'journeys-dir': { type: 'string', default: DEPLOYMENT_JOURNEYS_DIR },
      journey: { type: 'string' },
      sample: { type: 'string' },
      json: { type: 'boolean' },
      markdown: { type: 'boolean' },
      database: { type: 'string', default: config.databaseUrl },
      temporal: { type: 'string', default: config.temporal.address },
      namespace: { type: 'string', default: config.temporal.namespace },
      limit: { type: 'string', default: '50' },
      out: { type: 'string' },
    },
  });
  const sample = values.sample === undefined ? undefined : Number(values.sample);
  const limit = Number(values.limit);
  const valid =
    sub === 'check'
      ? sample === undefined || (Number.isInteger(sample) && sample >= 1)
      : sub === 'export-histories' && values.journey !== undefined && Number.isInteger(limit) && limit >= 1;
  if (!valid) {
    console.error(usage);
    return 2;
  }
  const db = createDatabase({ connectionString: values.database, max: 2, applicationName: 'waymark-journeys-check' });
  const connection = await Connection.connect(temporalConnectionOptions({ ...config.temporal, address: values.temporal }));
  try {
    if (sub === 'export-histories' && values.journey !== undefined) {
      const outDir = values.out ?? path.join(DEPLOYMENT_JOURNEYS_DIR, '__histories__', values.journey);
      const files = await exportHistories(
        { db, client: new Client({ connection, namespace: values.namespace }) },
        { journeyId: values.journey, limit, outDir },
      );
      console.log(`journeys export-histories: ${files.length} histories of live '${values.journey}' runs → ${outDir} (personal data replaced)`);
      return 0;
    }
    const report = await checkJourneys(
      { db, client: new Client({ connection, namespace: values.namespace }) },
      {
        journeysDir: values['journeys-dir'],
        ...(sample === undefined ? {} : { sample }),
        ...(values.journey === undefined ? {} : { journeyId: values.journey }),
      },
    );
    console.log(values.json === true ? JSON.stringify(report, null, 2) : values.markdown === true ? formatCheckMarkdown(report) : formatCheck(report));
    return report.incompatible > 0 ? 1 : 0;
  } finally {
    await Promise.all([db.destroy(), connection.close()]);
  }
}

const version = (value: string | null) => (value === null ? 'unknown' : `v${value}`);
/** example runs shown per journey; --json lists them all */
const EXAMPLES = 5;

export function formatCheck(report: JourneyCheckReport): string {
  if (report.journeys.length === 0) return 'journeys check: every live run is on the working tree’s version of its journey; nothing to replay';
  const lines = [`journeys check: ${report.replayed} live runs replayed on ${report.journeysDir}, ${report.incompatible} incompatible`];
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
    for (const run of journey.incompatibleRuns.slice(0, EXAMPLES)) lines.push(`    ✗ ${run.userId} at ${run.nodeId} (${run.workflowId}): ${run.divergence}`);
    if (journey.incompatibleRuns.length > EXAMPLES) lines.push(`    … and ${journey.incompatibleRuns.length - EXAMPLES} more (--json lists all)`);
    if (journey.fix !== undefined) lines.push(`  fix: ${journey.fix}`);
  }
  return lines.join('\n');
}

/** For a pull-request comment. */
export function formatCheckMarkdown(report: JourneyCheckReport): string {
  const lines = [
    `### Journey check: ${report.incompatible === 0 ? '✅' : '❌'} ${report.incompatible} of ${report.replayed} live runs incompatible`,
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
    if (journey.fix !== undefined) lines.push('', `Fix: ${journey.fix}`);
  }
  return lines.join('\n');
}
