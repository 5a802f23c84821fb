import type { Db } from '../db/database';
import { recordClick, recordFirstOpen } from './record-click';
import { publishTrackingEvent, type TrackingDeps } from './tracking-events';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The client address: first entry of x-forwarded-for, else x-real-ip (SPEC §4). */
export function clientIp(headers: Record<string, string | string[] | undefined>): string | null {
  const forwarded = Array.isArray(headers['x-forwarded-for']) ? headers['x-forwarded-for'][0] : headers['x-forwarded-for'];
  const first = forwarded?.split(',')[0]?.trim();
  if (first) return first.slice(0, 100);
  const real = Array.isArray(headers['x-real-ip']) ? headers['x-real-ip'][0] : headers['x-real-ip'];
  return real?.trim() ? real.trim().slice(0, 100) : null;
}

/** Follows a tracked link: the URL to redirect to, or undefined (unknown or malformed id). */
export async function followTrackedLink(
  deps: TrackingDeps & { db: Db },
  input: { linkId: string; ipAddress: string | null; userAgent: string | null },
): Promise<string | undefined> {
  if (!UUID.test(input.linkId)) return undefined;
  const click = await recordClick(deps.db, { ...input, userAgent: input.userAgent?.slice(0, 1000) ?? null });
  if (click === undefined) return undefined;
  publishTrackingEvent(deps, {
    name: 'email.link_clicked',
    ...(click.userId === null ? {} : { userId: click.userId }),
    email: click.toEmail,
    eventProperties: { emailSendId: click.emailSendId, templateKey: click.templateKey, linkUrl: click.originalUrl, linkId: click.linkId },
    source: 'tracking',
  });
  return click.originalUrl;
}

/** Records an open (first one only pushes `email.opened`). Malformed or unknown ids are ignored. */
export async function recordOpen(deps: TrackingDeps & { db: Db }, emailSendId: string): Promise<void> {
  if (!UUID.test(emailSendId)) return;
  const open = await recordFirstOpen(deps.db, emailSendId);
  if (open === undefined) return;
  publishTrackingEvent(deps, {
    name: 'email.opened',
    ...(open.userId === null ? {} : { userId: open.userId }),
    email: open.toEmail,
    eventProperties: { emailSendId: open.emailSendId, templateKey: open.templateKey },
    source: 'tracking',
  });
}
