import { preparedStatement, type PreparedStatementPool } from '../db/prepared-statements';

const LINK_DESTINATIONS = preparedStatement<{ id: string; originalUrl: string }>(
  'waymark_link_destinations',
  `select id, original_url as "originalUrl" from tracked_links where id = any($1::uuid[])`,
);

/**
 * Where tracked links point, without recording a click: the answer for hits past the tracking
 * ceiling (docs/operations.md, Rate limits), which still redirect. One statement per batch (the
 * recorder group-commits them, as it does clicks); per id, undefined when unknown. Ids must be
 * lower-case UUIDs.
 */
export async function linkDestinations(statements: PreparedStatementPool, linkIds: readonly string[]): Promise<(string | undefined)[]> {
  if (linkIds.length === 0) return [];
  const rows = await statements.run(LINK_DESTINATIONS, [linkIds]);
  const byId = new Map(rows.map((row) => [row.id, row.originalUrl]));
  return linkIds.map((id) => byId.get(id));
}
