import type { BucketShape } from './token-bucket';

/** What one request for a token gets. */
export interface Reservation {
  /** milliseconds until the token's slot (0: now) */
  waitMs: number;
  /**
   * true when the slot is further than the caller may wait: the slot is kept for this send (its
   * key) and the send comes back for it, instead of holding a worker slot that long
   */
  deferred: boolean;
}

export interface BucketReadout {
  /** tokens handed out for a moment still to come: sends waiting for their slot */
  waiting: number;
  /** tokens handed out per second over the last 10 full seconds */
  perSecond: number;
}

/** Where the bucket lives: Redis (shared by every process) or this process (the fallback). */
export interface BucketStore {
  /** `tokens`: what the send is worth (token-bucket.ts, reserveSlot) */
  reserve(sendKey: string, shape: BucketShape, maxWaitMs: number, tokens: number): Promise<Reservation>;
  readout(shape: BucketShape): Promise<BucketReadout>;
}

/** A slot kept for a deferred send is held this long past its moment before it lapses. */
export const TICKET_GRACE_MS = 30_000;
/** The window of the current-rate figure. */
export const RATE_WINDOW_SECONDS = 10;
