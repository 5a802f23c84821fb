/**
 * The arithmetic of the send-rate budget, a token bucket kept as one number (GCRA, the "generic
 * cell rate algorithm"): the theoretical arrival time `tat` of the next token. A token is worth
 * `intervalMs` (1000 / rate); up to `burst` tokens may go at once after an idle spell. A request
 * always gets a slot (`startAt`, now or later) and moves `tat` one interval on, so waiting sends
 * queue in the order they asked and the rate holds however many processes share the number.
 * redis-bucket.ts runs the same steps inside Redis (one atomic script); memory-bucket.ts runs
 * these functions for a process that cannot reach Redis.
 */
export interface BucketShape {
  /** milliseconds per token: 1000 / tokens per second */
  intervalMs: number;
  /** tokens that may go at once after an idle spell */
  burst: number;
}

/** A tenth of a second's worth, at least one: SES counts per second, so a full second's burst at once invites Throttling. */
export function bucketShape(ratePerSecond: number): BucketShape {
  return { intervalMs: 1000 / ratePerSecond, burst: Math.max(1, Math.floor(ratePerSecond / 10)) };
}

/**
 * One send's slot: when it may go, and the bucket's next `tat`. A send worth `tokens` (a send the
 * reputation breaker slows is worth two: deliverability/reputation-hold.ts) moves `tat` that many
 * intervals on, so the next send waits as long as `tokens` sends would have.
 */
export function reserveSlot(tat: number | undefined, now: number, shape: BucketShape, tokens = 1): { startAt: number; tat: number } {
  const from = Math.max(tat ?? now, now);
  return { startAt: Math.max(now, from - (shape.burst - 1) * shape.intervalMs), tat: from + tokens * shape.intervalMs };
}

/** Tokens handed out for a moment still to come: the sends waiting for their slot. */
export function slotsAhead(tat: number | undefined, now: number, shape: BucketShape): number {
  if (tat === undefined) return 0;
  return Math.max(0, Math.ceil((tat - now) / shape.intervalMs) - shape.burst);
}
