import type { PreparedStatementPool } from '../db/prepared-statements';
import { isUuid } from '../db/ids';
import { ERASED_LINK_PREFIX } from '../emails/erase-sends';
import { createGroupCommit } from '../concurrency/group-commit';
import { linkDestinations } from './link-destination';
import type { MachineReason } from '../db/schema';
import { machineReasonOf, type TrackingRequest } from './machine-hits';
import {
  ensureHoneypotLink,
  findClicksLeftPending,
  recordClicks,
  recordOpens,
  settleClicks,
  type ClickInput,
  type OpenInput,
  type RecordedClick,
  type RecordedOpen,
} from './record-click';
import { clickEvent, openEvent, type TrackingEventPublisher } from './tracking-events';
import { storeMissingTrackingEvents } from './missing-events';

/** The client address: first entry of x-forwarded-for, else x-real-ip. */
export function clientIp(headers: Record<string, string | string[] | undefined>): string | null {
  const forwarded = Array.isArray(headers['x-forwarded-for']) ? headers['x-forwarded-for'][0] : headers['x-forwarded-for'];
  const first = forwarded?.split(',')[0]?.trim();
  if (first) return first.slice(0, 100);
  const real = Array.isArray(headers['x-real-ip']) ? headers['x-real-ip'][0] : headers['x-real-ip'];
  return real?.trim() ? real.trim().slice(0, 100) : null;
}

/** One hit on a tracking route, as the route hands it over. */
export interface TrackingHit extends TrackingRequest {
  /** the address stored with the hit (first x-forwarded-for, else x-real-ip: `clientIp`) */
  ipAddress: string | null;
}

export interface TrackingRecorder {
  /**
   * Records a click (steps 1–3, written before it resolves) and pushes `email.link_clicked` when
   * `recordable` resolves true (the per-address ceiling, docs/operations.md "Rate limits"); past it,
   * only reads where the link points. Resolves the URL to redirect to, or undefined.
   */
  followLink(linkId: string, hit: TrackingHit, recordable: Promise<boolean>): Promise<string | undefined>;
  /** Records an open; the first open by a person, and the first by a machine, push `email.opened`. */
  recordOpen(emailSendId: string, hit: TrackingHit): Promise<void>;
  /** Resolves when every pending click is settled (shutdown, tests). */
  settled(): Promise<void>;
  /**
   * Settles the clicks an api left pending when it stopped, and stores the events of hits an api
   * killed outright never stored (run at start and every SWEEP_EVERY_MS).
   */
  sweep(): Promise<void>;
  /** Stops the sweep and waits for the pending clicks of this process (shutdown). */
  close(): Promise<void>;
}

/** How long a pending click waits for the other clicks of its burst before it is settled. */
const SETTLE_AFTER_MS = 1_100;
/**
 * How often an api looks for clicks another (stopped) api left pending. Their row says so
 * (`link_clicks.pending`), so the event leaves late rather than never; a few seconds late is
 * nothing for a click, and the look is an index scan of the unsettled clicks only.
 */
const SWEEP_EVERY_MS = 5_000;
/** Left pending: older than this, no live timer of any api will settle it. */
const LEFT_PENDING_AFTER_MS = 3 * SETTLE_AFTER_MS;
/**
 * A hit's event still missing this long after the hit was lost with its api's queue: the queue
 * sends a batch within 100 ms, and only a pipeline stalled for most of a minute holds one longer
 * (what the sweep then stores twice, the idempotency key refuses).
 */
const MISSING_EVENT_GRACE_MS = 60_000;

/**
 * Per-process tracking writer. Concurrent clicks (and opens) share one statement per batch
 * (group commit). Each hit carries its machine verdict (docs/email.md, "Machine opens and
 * clicks"): what the request shows is judged here, too_fast and honeypot by the click statement.
 */
export function createTrackingRecorder(options: {
  statements: PreparedStatementPool;
  events: TrackingEventPublisher;
  /** MACHINE_CLICK_WINDOW_MS */
  machineClickWindowMs: number;
  /** the clock the sweep of missing events reads hits' ages by (default: the database's) */
  now?: () => number;
  logger: { warn(object: object, message: string): void };
}): TrackingRecorder {
  const window = { machineClickWindowMs: options.machineClickWindowMs };
  const writeClick = createGroupCommit<ClickInput, RecordedClick | undefined>((inputs) => recordClicks(options.statements, inputs, window));
  const writeOpen = createGroupCommit<OpenInput, RecordedOpen | undefined>((inputs) => recordOpens(options.statements, inputs));
  const readDestination = createGroupCommit<string, string | undefined>((linkIds) => linkDestinations(options.statements, linkIds));
  const settleClick = createGroupCommit<string, { machineReason: MachineReason | null } | undefined>((clickIds) => settleClicks(options.statements, clickIds));
  const pending = new Set<Promise<void>>();

  const publishClick = (click: RecordedClick) => options.events.publish(clickEvent(click));

  // a pending click's event leaves once its verdict is known; its row stays `pending` until then,
  // so a stop within that second leaves it to the next sweep (of this api or another) to settle
  const settleNow = async (click: Omit<RecordedClick, 'machineReason' | 'pending' | 'erased'>) => {
    const settled = await settleClick.add(click.clickId);
    // another api's sweep (or this api's timer) settled it first and published its event
    if (settled !== undefined) publishClick({ ...click, machineReason: settled.machineReason, pending: false, erased: false });
  };
  const track = (work: Promise<void>, clickId?: string) => {
    const tracked = work
      .catch((error: unknown) => options.logger.warn({ err: error, clickId }, 'tracking: could not settle a click'))
      .finally(() => pending.delete(tracked));
    pending.add(tracked);
  };
  const settleLater = (click: RecordedClick) =>
    track(
      new Promise<void>((resolve) => setTimeout(resolve, SETTLE_AFTER_MS)).then(() => settleNow(click)),
      click.clickId,
    );
  const sweep = async () => {
    for (const click of await findClicksLeftPending(options.statements, LEFT_PENDING_AFTER_MS)) await settleNow(click);
    const stored = await storeMissingTrackingEvents(options.statements, (events) => options.events.store(events), {
      graceMs: MISSING_EVENT_GRACE_MS,
      now: options.now === undefined ? undefined : new Date(options.now()),
    });
    if (stored > 0) options.logger.warn({ count: stored }, 'tracking: stored the events of hits whose api stopped before it stored them');
  };
  const sweeper = setInterval(() => track(sweep()), SWEEP_EVERY_MS);
  sweeper.unref();
  track(sweep());

  const click = (linkId: string, hit: TrackingHit) =>
    writeClick.add({ linkId, ipAddress: hit.ipAddress, userAgent: hit.userAgent?.slice(0, 1000) ?? null, machineReason: machineReasonOf('click', hit) });
  // the honeypot's tracked link has no destination, nor has an erased recipient's (emails/erase-sends.ts)
  const destinationOf = (url: string | undefined) => (url === '' || url?.startsWith(ERASED_LINK_PREFIX) === true ? undefined : url);

  return {
    async followLink(rawLinkId, hit, recordable) {
      const within = await recordable;
      if (!isUuid(rawLinkId)) return undefined;
      const linkId = rawLinkId.toLowerCase();
      // past the ceiling: where the link points, nothing recorded
      if (!within) return destinationOf(await readDestination.add(linkId));
      let recorded = await click(linkId, hit);
      // the invisible link carries the send's id: its tracked link appears on its first click (the
      // hit is already counted within the ceiling)
      if (recorded === undefined && (await ensureHoneypotLink(options.statements, linkId))) recorded = await click(linkId, hit);
      if (recorded === undefined) return undefined;
      // an erased recipient's click is counted, and no event brings their contact back
      if (recorded.pending) settleLater(recorded);
      else if (!recorded.erased) publishClick(recorded);
      return destinationOf(recorded.originalUrl);
    },

    async recordOpen(emailSendId, hit) {
      if (!isUuid(emailSendId)) return;
      const open = await writeOpen.add({
        emailSendId: emailSendId.toLowerCase(),
        ipAddress: hit.ipAddress,
        userAgent: hit.userAgent?.slice(0, 1000) ?? null,
        machineReason: machineReasonOf('open', hit),
      });
      if (open === undefined || !open.first || open.erased) return;
      options.events.publish(openEvent(open, new Date()));
    },

    async settled() {
      await Promise.all([...pending]);
    },

    sweep,

    async close() {
      clearInterval(sweeper);
      await Promise.all([...pending]);
    },
  };
}
