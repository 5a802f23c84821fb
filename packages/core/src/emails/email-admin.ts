import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { EmailSendRow, EmailStatus, JourneyStatus, MachineReason } from '../db/schema';
import { notFound } from '../errors/app-error';
import { paginate, soleFilter, type CountedFilter } from '../db/paginate';

export const EMAIL_NOT_FOUND = 'Email not found';

export interface EmailSendQuery {
  limit: number;
  offset: number;
  toEmail?: string | undefined;
  templateKey?: string | undefined;
  status?: EmailStatus | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

/** Opens and clicks of a send, people and machines apart (docs/email.md, "Machine opens and clicks"). */
export interface HitCounts {
  opens: { human: number; machine: number };
  clicks: { human: number; machine: number };
}

export type EmailSendWithHits = EmailSendRow & HitCounts;

/** The hit counts of a page of sends: two grouped reads over the indexed opens and clicks of those sends. */
async function withHitCounts(db: Db, emails: EmailSendRow[]): Promise<EmailSendWithHits[]> {
  if (emails.length === 0) return [];
  const ids = emails.map((email) => email.id);
  const [opens, clicks] = await Promise.all([
    db
      .selectFrom('emailOpens')
      .select(['emailSendId', 'machine', (eb) => eb.fn.countAll<string>().as('n')])
      .where('emailSendId', 'in', ids)
      .groupBy(['emailSendId', 'machine'])
      .execute(),
    db
      .selectFrom('linkClicks')
      .innerJoin('trackedLinks', 'trackedLinks.id', 'linkClicks.trackedLinkId')
      .select(['trackedLinks.emailSendId', 'linkClicks.machine', (eb) => eb.fn.countAll<string>().as('n')])
      .where('trackedLinks.emailSendId', 'in', ids)
      .groupBy(['trackedLinks.emailSendId', 'linkClicks.machine'])
      .execute(),
  ]);
  const count = (rows: { emailSendId: string; machine: boolean; n: string | number }[], id: string, machine: boolean) =>
    Number(rows.find((row) => row.emailSendId === id && row.machine === machine)?.n ?? 0);
  return emails.map((email) => ({
    ...email,
    opens: { human: count(opens, email.id, false), machine: count(opens, email.id, true) },
    clicks: { human: count(clicks, email.id, false), machine: count(clicks, email.id, true) },
  }));
}

const EMAIL_FILTERS = ['toEmail', 'templateKey', 'status', 'from', 'to'] as const;

/** A `templateKey` or `status` filter alone: counted by triggers (migrations 0132, 0140). */
function countedEmailFilter(query: EmailSendQuery): CountedFilter | undefined {
  const sole = soleFilter(query, EMAIL_FILTERS);
  if (sole === 'templateKey') return { table: 'email_sends', column: 'template_key', value: query.templateKey! };
  if (sole === 'status') return { table: 'email_sends', column: 'status', value: query.status! };
  return undefined;
}

/** GET /v1/admin/emails: the filters of its OpenAPI description, newest first. `toEmail` matches case-insensitively. */
export async function listEmailSends(db: Db, query: EmailSendQuery): Promise<{ emails: EmailSendWithHits[]; total: number }> {
  let base = db.selectFrom('emailSends');
  if (query.toEmail !== undefined) base = base.where(sql`lower(to_email)`, '=', query.toEmail.trim().toLowerCase());
  if (query.templateKey !== undefined) base = base.where('templateKey', '=', query.templateKey);
  if (query.status !== undefined) base = base.where('status', '=', query.status);
  if (query.from !== undefined) base = base.where('createdAt', '>=', query.from);
  if (query.to !== undefined) base = base.where('createdAt', '<=', query.to);
  const { rows, total } = await paginate(base.selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc'), base, query, countedEmailFilter(query));
  return { emails: await withHitCounts(db, rows), total };
}

/** A machine verdict as the admin plane shows it: machineReason null for a person. */
interface MachineVerdict {
  machine: boolean;
  machineReason: MachineReason | null;
}

export interface TrackedLinkDetail {
  id: string;
  originalUrl: string;
  clickCount: number;
  honeypot: boolean;
  clicks: ({ id: string; clickedAt: Date; ipAddress: string | null; userAgent: string | null } & MachineVerdict)[];
}

/** How many opens the detail lists, newest first (the counts cover all of them). */
const RECENT_OPENS = 100;

export interface EmailSendDetail {
  email: EmailSendWithHits;
  trackedLinks: TrackedLinkDetail[];
  recentOpens: ({ id: string; openedAt: Date; ipAddress: string | null; userAgent: string | null } & MachineVerdict)[];
  journeyContext: { journeyId: string; userId: string; status: JourneyStatus; currentNodeId: string } | null;
}

/** GET /v1/admin/emails/{id}: the send, its links with their clicks, and its journey state. */
export async function getEmailSendDetail(db: Db, id: string): Promise<EmailSendDetail> {
  const email = await db.selectFrom('emailSends').selectAll().where('id', '=', id).executeTakeFirst();
  if (email === undefined) throw notFound(EMAIL_NOT_FOUND);
  const [links, clicks, opens, state, [withHits]] = await Promise.all([
    db
      .selectFrom('trackedLinks')
      .select(['id', 'originalUrl', 'clickCount', 'honeypot'])
      .where('emailSendId', '=', id)
      .orderBy('createdAt')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('linkClicks')
      .innerJoin('trackedLinks', 'trackedLinks.id', 'linkClicks.trackedLinkId')
      .select([
        'linkClicks.id',
        'linkClicks.trackedLinkId',
        'linkClicks.clickedAt',
        'linkClicks.ipAddress',
        'linkClicks.userAgent',
        'linkClicks.machine',
        'linkClicks.machineReason',
      ])
      .where('trackedLinks.emailSendId', '=', id)
      .orderBy('linkClicks.clickedAt', 'desc')
      .execute(),
    db
      .selectFrom('emailOpens')
      .select(['id', 'openedAt', 'ipAddress', 'userAgent', 'machine', 'machineReason'])
      .where('emailSendId', '=', id)
      .orderBy('openedAt', 'desc')
      .limit(RECENT_OPENS)
      .execute(),
    email.journeyStateId === null
      ? Promise.resolve(undefined)
      : db.selectFrom('journeyStates').select(['journeyId', 'userId', 'status', 'currentNodeId']).where('id', '=', email.journeyStateId).executeTakeFirst(),
    withHitCounts(db, [email]),
  ]);
  return {
    email: withHits!,
    recentOpens: opens,
    trackedLinks: links.map((link) => ({
      ...link,
      clicks: clicks.filter((click) => click.trackedLinkId === link.id).map(({ trackedLinkId: _omit, ...click }) => click),
    })),
    journeyContext: state ?? null,
  };
}
