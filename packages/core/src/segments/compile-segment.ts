import { durationMs } from '@waymark/journey';
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { ContactsTable, Database } from '../db/schema';
import { propertyConditionSql } from './property-sql';
import { type SegmentCondition, type SegmentLeaf } from './segment-conditions';

/** The contacts table as segment queries name it (`contacts as c`). */
export type SegmentTables = Database & { c: ContactsTable };
type ContactsBuilder = ExpressionBuilder<SegmentTables, 'c'>;

/**
 * A condition tree as one WHERE expression over `contacts as c`: every leaf a predicate or a
 * correlated EXISTS, so PostgreSQL evaluates the whole segment in one query (no per-contact loop).
 * `now` anchors every `within` window, so a count and its sample agree.
 */
export function segmentFilter(condition: SegmentCondition, now: Date): (eb: ContactsBuilder) => Expression<SqlBool> {
  return (eb) => compile(eb, condition, now);
}

function compile(eb: ContactsBuilder, condition: SegmentCondition, now: Date): Expression<SqlBool> {
  if ('all' in condition) return condition.all.length === 0 ? sql<SqlBool>`true` : eb.and(condition.all.map((child) => compile(eb, child, now)));
  if ('any' in condition) return condition.any.length === 0 ? sql<SqlBool>`false` : eb.or(condition.any.map((child) => compile(eb, child, now)));
  if ('not' in condition) return eb.not(compile(eb, condition.not, now));
  return leaf(eb, condition, now);
}

function since(now: Date, within: string): Date {
  return new Date(now.getTime() - durationMs(within));
}

function leaf(eb: ContactsBuilder, condition: SegmentLeaf, now: Date): Expression<SqlBool> {
  switch (condition.type) {
    case 'property':
      return propertyConditionSql(eb.ref('c.properties'), condition);
    case 'list':
      return eb.exists(
        eb
          .selectFrom('listMemberships as m')
          .innerJoin('lists as l', 'l.id', 'm.listId')
          .select(sql`1`.as('one'))
          .whereRef('m.contactId', '=', 'c.id')
          .where('m.subscribed', '=', true)
          .where('l.key', '=', condition.list),
      );
    case 'event': {
      const events = eb
        .selectFrom('events as e')
        .select(sql`1`.as('one'))
        .whereRef('e.userId', '=', 'c.externalId')
        .where('e.event', '=', condition.event)
        .where('e.occurredAt', '>=', since(now, condition.within))
        .$if(condition.where !== undefined && condition.where.length > 0, (query) =>
          query.where((inner) => inner.and(condition.where!.map((where) => propertyConditionSql(inner.ref('e.properties'), where)))),
        );
      const minCount = condition.minCount ?? 1;
      if (minCount === 1) return eb.exists(events);
      // stop counting at minCount: a contact with a million events costs no more than one with enough
      return eb(
        eb.selectFrom(events.limit(minCount).as('hits')).select((count) => count.fn.countAll().as('n')),
        '>=',
        minCount,
      );
    }
    case 'email': {
      const column = condition.action === 'opened' ? 'humanOpenedAt' : 'humanClickedAt';
      return eb.exists(
        eb
          .selectFrom('emailSends as s')
          .select(sql`1`.as('one'))
          // a send to a contact known only by address has no user id
          .where((match) =>
            match.or([
              match('s.userId', '=', match.ref('c.externalId')),
              match.and([match('c.externalId', 'is', null), match(sql`lower(s.to_email)`, '=', sql`lower(c.email)`)]),
            ]),
          )
          .where(`s.${column}`, '>=', since(now, condition.within))
          .$if(condition.templateKey !== undefined, (query) => query.where('s.templateKey', '=', condition.templateKey!)),
      );
    }
    case 'lastSeen':
      return eb('c.lastSeenAt', '>=', since(now, condition.within));
  }
}
