import { Migrator, type MigrationResultSet } from 'kysely/migration';
import { migrations } from '@waymark/migrations/index';
import type { Db } from './database';

export function createMigrator(db: Db): Migrator {
  // Parallel branches may land migrations out of numeric order; apply whatever is missing.
  return new Migrator({ db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
}

export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  return createMigrator(db).migrateToLatest();
}

/** Names of migrations not yet applied; empty when the database is current. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const all = await createMigrator(db).getMigrations();
  return all.filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
}

/** The api and worker call this at boot: an unmigrated database stops start-up with a clear message. */
export async function assertMigrated(db: Db): Promise<void> {
  const pending = await pendingMigrations(db);
  if (pending.length > 0) {
    throw new Error(`Database is not migrated: ${pending.length} pending migration(s) (${pending.join(', ')}). Run \`npm run migrate\` first.`);
  }
}
