import type { PreparedStatementPool } from '../db/prepared-statements';
import { isUuid } from '../db/ids';
import { createGroupCommit } from './group-commit';
import { recordClicks, recordFirstOpens, type ClickInput, type RecordedClick, type RecordedOpen } from './record-click';
import type { TrackingEventPublisher } from './tracking-events';

/** The client address: first entry of x-forwarded-for, else x-real-ip. */
export function clientIp(headers: Record<string, string | string[] | undefined>): string | null {
  const forwarded = Array.isArray(headers['x-forwarded-for']) ? headers['x-forwarded-for'][0] : headers['x-forwarded-for'];
  const first = forwarded?.split(',')[0]?.trim();
  if (first) return first.slice(0, 100);
  const real = Array.isArray(headers['x-real-ip']) ? headers['x-real-ip'][0] : headers['x-real-ip'];
  return real?.trim() ? real.trim().slice(0, 100) : null;
}

export interface TrackingRecorder {
  /** Records a click (steps 1–3, written before it resolves) and pushes `email.link_clicked`. Resolves the URL to redirect to, or undefined. */
  followLink(input: ClickInput): Promise<string | undefined>;
  /** Records an open; only the first open of a send writes and pushes `email.opened`. */
  recordOpen(emailSendId: string): Promise<void>;
}

/**
 * Per-process tracking writer. Concurrent clicks (and first opens) share one statement per
 * batch (group commit); sends whose open is already recorded are remembered (bounded LRU), so a
 * repeat open — mail clients and image proxies re-fetch pixels — costs no database round trip.
 * The database stays the truth: openedAt is only ever set where it is empty.
 */
export function createTrackingRecorder(options: {
  statements: PreparedStatementPool;
  events: TrackingEventPublisher;
  openedCacheSize?: number;
}): TrackingRecorder {
  const writeClick = createGroupCommit<ClickInput, RecordedClick | undefined>({ write: (inputs) => recordClicks(options.statements, inputs) });
  const writeOpen = createGroupCommit<string, RecordedOpen | undefined>({ write: (ids) => recordFirstOpens(options.statements, ids) });
  const cacheSize = options.openedCacheSize ?? 100_000;
  // Map keeps insertion order: the first key is the least recently added
  const opened = new Map<string, true>();
  const remember = (id: string) => {
    opened.set(id, true);
    if (opened.size > cacheSize) opened.delete(opened.keys().next().value as string);
  };

  return {
    async followLink(input) {
      if (!isUuid(input.linkId)) return undefined;
      const click = await writeClick({ ...input, linkId: input.linkId.toLowerCase(), userAgent: input.userAgent?.slice(0, 1000) ?? null });
      if (click === undefined) return undefined;
      options.events.publish({
        name: 'email.link_clicked',
        ...(click.userId === null ? {} : { userId: click.userId }),
        email: click.toEmail,
        eventProperties: { emailSendId: click.emailSendId, templateKey: click.templateKey, linkUrl: click.originalUrl, linkId: click.linkId },
        timestamp: new Date(),
        idempotencyKey: `email.link_clicked:${click.clickId}`,
        source: 'tracking',
      });
      return click.originalUrl;
    },

    async recordOpen(emailSendId) {
      if (!isUuid(emailSendId)) return;
      const id = emailSendId.toLowerCase();
      if (opened.has(id)) return;
      const open = await writeOpen(id);
      // opened now, opened before, or unknown: in every case a later fetch has nothing to write
      remember(id);
      if (open === undefined) return;
      options.events.publish({
        name: 'email.opened',
        ...(open.userId === null ? {} : { userId: open.userId }),
        email: open.toEmail,
        eventProperties: { emailSendId: open.emailSendId, templateKey: open.templateKey },
        timestamp: new Date(),
        idempotencyKey: `email.opened:${open.emailSendId}`,
        source: 'tracking',
      });
    },
  };
}
