import type { AppLogger } from '../../logging/logger';

export interface DeliveryPoolDeps {
  /** claims up to `limit` due deliveries, leased to this pool (delivery-queue.ts) */
  claim(limit: number): Promise<string[]>;
  /** one attempt of one claimed delivery; it records its own outcome */
  deliver(deliveryId: string): Promise<void>;
  logger: AppLogger;
  /** WEBHOOK_DELIVERY_CONCURRENCY: the pool's slots, attempts in flight at once */
  concurrency: number;
  /** how often due work nobody announced (a retry coming due, a lapsed lease) is looked for */
  pollMs: number;
}

export interface DeliveryPool {
  /** look for due deliveries now (a notice of new ones, a slot that came free) */
  wake(): void;
  /** stops claiming and waits for the attempts in flight */
  close(): Promise<void>;
}

/**
 * The outbound delivery slots of one process, apart from everything Temporal runs: a fixed number
 * of attempts in flight, refilled from the queue in PostgreSQL whenever one ends, a notice
 * arrives or the poll comes round. A slot holds one HTTP attempt and nothing else: waiting
 * between retries, behind a failing endpoint or for a disabled one happens in the table.
 */
export function startDeliveryPool(deps: DeliveryPoolDeps): DeliveryPool {
  const inFlight = new Set<Promise<void>>();
  let closed = false;
  let claiming = false;
  let again = false;

  const fill = async (): Promise<void> => {
    if (closed) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    try {
      do {
        again = false;
        const free = deps.concurrency - inFlight.size;
        if (free <= 0) break;
        const ids = await deps.claim(free);
        for (const id of ids) {
          const run: Promise<void> = deps
            .deliver(id)
            .catch((error: unknown) =>
              deps.logger.warn(
                { err: error, deliveryId: id },
                'outbound webhooks: an attempt could not run or be recorded; its lease lapses and it runs again',
              ),
            )
            .finally(() => {
              inFlight.delete(run);
              wake();
            });
          inFlight.add(run);
        }
        // a full claim may have left more due work behind
        if (ids.length === free) again = true;
      } while (again && !closed);
    } catch (error) {
      deps.logger.warn({ err: error }, 'outbound webhooks: could not claim deliveries; the next poll retries');
    } finally {
      claiming = false;
    }
  };
  const wake = () => void fill();
  const timer = setInterval(wake, deps.pollMs);
  wake();

  return {
    wake,
    async close() {
      closed = true;
      clearInterval(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}
