import { parseArgs } from 'node:util';
import { createApiKey } from '@waymark/core/auth/api-keys';
import { scopeSchema } from '@waymark/core/auth/scopes';
import { loadCommandConfig } from '@waymark/core/config/config';
import { unsafeSettings } from '@waymark/core/config/unsafe-settings';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { migrateToLatest } from '@waymark/core/db/migrator';
import { explainJourney } from '@waymark/core/journeys/explain';
import type { JourneyRegistry } from '@waymark/core/journeys/registry';
import { isAppError } from '@waymark/core/errors/app-error';
import { journeys } from '@waymark/journeys';
import { createDeploymentJourneys } from '@waymark/temporal/runtime';
import { z } from 'zod';
import { formatExplanation } from './explain-story';
import { formatSimulation, runSimulation } from './simulate';
import { adminCommand, adminUsage } from './admin-commands';

const usage = `waymark <command>

  migrate                                   apply pending database migrations
  keys create --name NAME --scopes a,b [--expires ISO]
                                            create an API key and print it once
  dev-key                                   create the development full-admin key if none exists
  simulate --journey ID --since 30d [--limit N] [--json]
                                            dry-run the journey's current code over the real
                                            history of that window (nothing sent or written)
  explain --user ID --journey ID [--template KEY]
                                            why a person did or did not get a journey's emails
                                            (times in the local zone; TZ=… to choose another)
  journeys check [--journeys-dir DIR] [--journey ID] [--sample N] [--json] [--markdown]
                 [--database URL] [--temporal HOST:PORT] [--namespace NS]
                                            replay the live runs of every journey whose code changed
                                            against the working tree's journeys/ (DIR, default the
                                            checkout's); exit 1 when any run would break
  journeys export-histories --journey ID [--limit 50] [--out DIR]
                                            live runs' histories (personal data replaced) as replay
                                            fixtures under journeys/__histories__/ID/
${adminUsage}
`;

/** Commands run with database access only: no HTTP, no running API. */
async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help') {
    console.log(usage);
    return 0;
  }
  const config = loadCommandConfig();
  // the servers' start-up check over what the CLI reads, as warnings: the CLI serves nothing, and
  // it is the recovery tool (admin reset-password), so it must run on a server that refuses to start
  const unsafe = unsafeSettings({ authSecret: config.authSecret, trustProxy: config.trustProxy, emailWebhookSecret: null, openSources: [] });
  for (const warning of unsafe) console.error(`waymark: warning: unsafe setting: ${warning}`);
  // its own database (--database) and Temporal connection
  if (command === 'journeys') {
    // loaded on demand: the Temporal worker SDK (native bridge, bundler) would slow every other command's start
    const [{ DefaultLogger, Runtime, makeTelemetryFilterString }, { journeysCommand }] = await Promise.all([
      import('@temporalio/worker'),
      import('./journeys-check'),
    ]);
    // each failing replay is what the check reports; the SDK core's own warning per run would repeat it
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }), forward: {} } },
    });
    return journeysCommand(sub, rest, config);
  }
  const db = createDatabase({ connectionString: config.databaseUrl, max: 2, applicationName: 'waymark-cli' });
  try {
    switch (command) {
      case 'migrate':
        return await migrate(db);
      case 'keys':
        if (sub !== 'create') break;
        return await createKey(db, rest);
      case 'dev-key':
        return await devKey(db);
      case 'simulate':
        return await simulate(
          db,
          [sub, ...rest].filter((arg): arg is string => arg !== undefined),
          config.defaultTimeZone,
        );
      case 'explain':
        return await explain(
          db,
          createDeploymentJourneys(config),
          config.bounceThreshold,
          [sub, ...rest].filter((arg): arg is string => arg !== undefined),
        );
      case 'admin':
        return await adminCommand(db, sub, rest, { cacheUrl: config.cacheUrl });
    }
    console.error(`unknown command: ${[command, sub].filter(Boolean).join(' ')}\n\n${usage}`);
    return 2;
  } finally {
    await db.destroy();
  }
}

async function migrate(db: Db): Promise<number> {
  const { error, results } = await migrateToLatest(db);
  for (const result of results ?? []) {
    console.log(`[migrate] ${result.migrationName}: ${result.status === 'Success' ? 'applied' : result.status.toLowerCase()}`);
  }
  if (error !== undefined) {
    console.error('[migrate] failed:', error);
    return 1;
  }
  if ((results ?? []).length === 0) console.log('[migrate] database is up to date');
  return 0;
}

async function createKey(db: Db, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { name: { type: 'string' }, scopes: { type: 'string' }, expires: { type: 'string' } } });
  const parsed = z
    .object({
      name: z.string().min(1),
      scopes: z
        .string()
        .transform((value) => value.split(',').map((scope) => scope.trim()))
        .pipe(z.array(scopeSchema).min(1)),
      expires: z.iso.datetime({ offset: true }).optional(),
    })
    .safeParse(values);
  if (!parsed.success) {
    console.error(`invalid arguments: ${parsed.error.issues.map((issue) => `--${issue.path.join('.')} ${issue.message}`).join('; ')}`);
    return 2;
  }
  const key = await createApiKey(db, {
    name: parsed.data.name,
    scopes: parsed.data.scopes,
    expiresAt: parsed.data.expires === undefined ? null : new Date(parsed.data.expires),
  });
  console.log(`Created API key "${key.name}" (${key.scopes.join(', ')}). It is shown only now:\n\n  ${key.key}\n`);
  return 0;
}

const DEV_KEY_NAME = 'dev-admin';

async function simulate(db: Db, args: string[], defaultTimeZone: string): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { journey: { type: 'string' }, since: { type: 'string', default: '30d' }, limit: { type: 'string', default: '10000' }, json: { type: 'boolean' } },
  });
  const journey = journeys.find((candidate) => candidate.id === values.journey);
  const limit = Number(values.limit);
  if (journey === undefined || !Number.isInteger(limit) || limit < 1) {
    console.error(`usage: waymark simulate --journey ID --since 30d [--limit N]  (journeys: ${journeys.map((candidate) => candidate.id).join(', ')})`);
    return 2;
  }
  const result = await runSimulation(db, {
    journey,
    since: values.since,
    limit,
    defaultTimeZone,
    onProgress: (done, total) => {
      process.stderr.write(`\r[simulate] ${done}/${total}`);
    },
  });
  process.stderr.write('\n');
  console.log(values.json === true ? JSON.stringify(result, null, 2) : formatSimulation(result));
  return 0;
}

/** `explain`: reads the database only; a live run's pending timer shows as its last `waiting` log step. */
async function explain(db: Db, registry: JourneyRegistry, bounceThreshold: number, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { user: { type: 'string' }, journey: { type: 'string' }, template: { type: 'string' } } });
  if (values.user === undefined || values.journey === undefined) {
    console.error('usage: waymark explain --user ID --journey ID [--template KEY]');
    return 2;
  }
  try {
    const explanation = await explainJourney(
      { db, journeys: registry, orchestrator: {}, bounceThreshold },
      { contactId: values.user, journeyId: values.journey, ...(values.template === undefined ? {} : { templateKey: values.template }) },
    );
    console.log(formatExplanation(explanation));
    return 0;
  } catch (error) {
    if (!isAppError(error) || error.status !== 404) throw error;
    console.error(error.message);
    return 1;
  }
}

async function devKey(db: Db): Promise<number> {
  const existing = await db.selectFrom('apiKeys').select('keyPrefix').where('name', '=', DEV_KEY_NAME).where('revokedAt', 'is', null).executeTakeFirst();
  if (existing) {
    console.log(
      `Dev admin key already exists (${existing.keyPrefix}…; shown once when created). New one: npm run waymark -- keys create --name me --scopes full-admin`,
    );
    return 0;
  }
  const key = await createApiKey(db, { name: DEV_KEY_NAME, scopes: ['full-admin'] });
  console.log(
    `\nDev admin key (full-admin), shown only this once:\n\n  ${key.key}\n\n  curl -H "Authorization: Bearer ${key.key}" http://localhost:3002/v1/admin/api-keys\n`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
