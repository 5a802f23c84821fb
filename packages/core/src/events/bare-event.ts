import type { Db } from '../db/database';

/** One plain INSERT: the benchmark's baseline for what an ingest costs at minimum. */
export async function insertBareEvent(db: Db, event: { name: string; userId: string }): Promise<void> {
  await db.insertInto('events').values({ userId: event.userId, event: event.name, properties: '{}', source: 'bench' }).execute();
}
