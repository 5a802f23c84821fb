import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { EmailSendRow, EmailStatus, JourneyStatus } from '../db/schema';
import { notFound } from '../errors/app-error';
import { paginate } from '../db/paginate';

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

/** GET /v1/admin/emails: filters of SPEC §4, newest first. `toEmail` matches case-insensitively. */
export async function listEmailSends(db: Db, query: EmailSendQuery): Promise<{ emails: EmailSendRow[]; total: number }> {
  let base = db.selectFrom('emailSends');
  if (query.toEmail !== undefined) base = base.where(sql`lower(to_email)`, '=', query.toEmail.trim().toLowerCase());
  if (query.templateKey !== undefined) base = base.where('templateKey', '=', query.templateKey);
  if (query.status !== undefined) base = base.where('status', '=', query.status);
  if (query.from !== undefined) base = base.where('createdAt', '>=', query.from);
  if (query.to !== undefined) base = base.where('createdAt', '<=', query.to);
  const { rows, total } = await paginate(base.selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc'), base, query);
  return { emails: rows, total };
}

export interface TrackedLinkDetail {
  id: string;
  originalUrl: string;
  clickCount: number;
  clicks: { id: string; clickedAt: Date; ipAddress: string | null; userAgent: string | null }[];
}

export interface EmailSendDetail {
  email: EmailSendRow;
  trackedLinks: TrackedLinkDetail[];
  journeyContext: { journeyId: string; userId: string; status: JourneyStatus; currentNodeId: string } | null;
}

/** GET /v1/admin/emails/{id}: the send, its links with their clicks, and its journey state. */
export async function getEmailSendDetail(db: Db, id: string): Promise<EmailSendDetail> {
  const email = await db.selectFrom('emailSends').selectAll().where('id', '=', id).executeTakeFirst();
  if (email === undefined) throw notFound(EMAIL_NOT_FOUND);
  const [links, clicks, state] = await Promise.all([
    db.selectFrom('trackedLinks').select(['id', 'originalUrl', 'clickCount']).where('emailSendId', '=', id).orderBy('createdAt').orderBy('id').execute(),
    db
      .selectFrom('linkClicks')
      .innerJoin('trackedLinks', 'trackedLinks.id', 'linkClicks.trackedLinkId')
      .select(['linkClicks.id', 'linkClicks.trackedLinkId', 'linkClicks.clickedAt', 'linkClicks.ipAddress', 'linkClicks.userAgent'])
      .where('trackedLinks.emailSendId', '=', id)
      .orderBy('linkClicks.clickedAt', 'desc')
      .execute(),
    email.journeyStateId === null
      ? Promise.resolve(undefined)
      : db.selectFrom('journeyStates').select(['journeyId', 'userId', 'status', 'currentNodeId']).where('id', '=', email.journeyStateId).executeTakeFirst(),
  ]);
  return {
    email,
    trackedLinks: links.map((link) => ({
      ...link,
      clicks: clicks.filter((click) => click.trackedLinkId === link.id).map(({ trackedLinkId: _omit, ...click }) => click),
    })),
    journeyContext: state ?? null,
  };
}
