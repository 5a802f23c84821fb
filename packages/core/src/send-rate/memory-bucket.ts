import { RATE_WINDOW_SECONDS, TICKET_GRACE_MS, type BucketStore } from './bucket-store';
import { reserveSlot, slotsAhead } from './token-bucket';

/**
 * The bucket in this process: what a process uses while Redis is unreachable, at its share of the
 * rate (send-rate-governor.ts). The same steps as the Redis script (redis-bucket.ts).
 */
export function createMemoryBucket(now: () => number = Date.now): BucketStore {
  let tat: number | undefined;
  const tickets = new Map<string, number>();
  const granted = new Map<number, number>();

  const forgetOld = (at: number) => {
    for (const [key, slot] of tickets) if (slot < at - TICKET_GRACE_MS) tickets.delete(key);
    for (const second of granted.keys()) if (second < Math.floor(at / 1000) - RATE_WINDOW_SECONDS - 1) granted.delete(second);
  };

  return {
    async reserve(sendKey, shape, maxWaitMs, tokens) {
      const at = now();
      forgetOld(at);
      const ticket = tickets.get(sendKey);
      if (ticket !== undefined) {
        if (ticket - at > maxWaitMs) return { waitMs: ticket - at, deferred: true };
        tickets.delete(sendKey);
        return { waitMs: Math.max(0, ticket - at), deferred: false };
      }
      const slot = reserveSlot(tat, at, shape, tokens);
      tat = slot.tat;
      const second = Math.floor(slot.startAt / 1000);
      granted.set(second, (granted.get(second) ?? 0) + tokens);
      const waitMs = slot.startAt - at;
      if (waitMs > maxWaitMs) {
        tickets.set(sendKey, slot.startAt);
        return { waitMs, deferred: true };
      }
      return { waitMs, deferred: false };
    },
    async readout(shape) {
      const at = now();
      const second = Math.floor(at / 1000);
      let sum = 0;
      for (let back = 1; back <= RATE_WINDOW_SECONDS; back += 1) sum += granted.get(second - back) ?? 0;
      return { waiting: slotsAhead(tat, at, shape), perSecond: sum / RATE_WINDOW_SECONDS };
    },
  };
}
