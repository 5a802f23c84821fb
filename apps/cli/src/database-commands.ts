import { createApiKey } from '@waymark/core/auth/api-keys';
import { scopeSchema } from '@waymark/core/auth/scopes';
import type { Db } from '@waymark/core/db/database';
import { migrateToLatest } from '@waymark/core/db/migrator';
import { explainJourney } from '@waymark/core/journeys/explain';
import type { JourneyRegistry } from '@waymark/core/journeys/registry';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import { isAppError } from '@waymark/core/errors/app-error';
import { journeys } from '@waymark/journeys';
import { z } from 'zod';
import { formatExplanation } from './explain-story';
import { formatSimulation, runSimulation } from './simulate';

/** The commands that need only the database: no HTTP, no running API. */

export async function migrate(db: Db): Promise<number> {
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

export async function createKey(db: Db, values: { name?: string; scopes?: string; expires?: string }): Promise<number> {
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

export async function simulate(db: Db, values: { journey?: string; since: string; limit: string; json?: boolean }, defaultTimeZone: string): Promise<number> {
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
export async function explain(
  db: Db,
  registry: JourneyRegistry,
  categories: Pick<PreferenceCategories, 'find'>,
  values: { user?: string; journey?: string; template?: string },
): Promise<number> {
  if (values.user === undefined || values.journey === undefined) {
    console.error('usage: waymark explain --user ID --journey ID [--template KEY]');
    return 2;
  }
  try {
    const explanation = await explainJourney(
      { db, journeys: registry, orchestrator: {}, categories },
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

export async function devKey(db: Db): Promise<number> {
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
