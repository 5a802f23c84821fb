import type { z } from 'zod';
import type { DlqEntryRow, JsonObject } from '../db/schema';
import { conflict } from '../errors/app-error';
import type { DeadLetterSource } from './dead-letters';

/** Re-queues one parked task through its original pipeline; throws when it could not. */
export type DeadLetterRetryHandler = (entry: DlqEntryRow) => Promise<void>;

/**
 * The DLQ only stores parked work; the module that owns a source knows how to re-queue it and
 * registers its handler here at start-up (apps/api/src/deps.ts). That keeps the DLQ at the
 * bottom of the import graph: emails, events and journeys import it, never the reverse.
 */
export interface DeadLetterRetryHandlers {
  register(source: DeadLetterSource, handler: DeadLetterRetryHandler): void;
  /** undefined for a source nobody registered (alert, import: not retried automatically) */
  find(source: string): DeadLetterRetryHandler | undefined;
}

export function createDeadLetterRetryHandlers(): DeadLetterRetryHandlers {
  const handlers = new Map<string, DeadLetterRetryHandler>();
  return {
    register(source, handler) {
      // two owners claiming one source is a wiring mistake: fail at start-up, not on a retry
      if (handlers.has(source)) throw new Error(`A DLQ retry handler for '${source}' is already registered`);
      handlers.set(source, handler);
    },
    find: (source) => handlers.get(source),
  };
}

/**
 * A handler's first step: the stored payload, checked against what its owner wrote there. A payload
 * that does not parse is the entry's state, not the caller's input: 409, like an entry already retried.
 */
export function parseDeadLetterPayload<T>(schema: z.ZodType<T>, payload: JsonObject, what: string): T {
  const result = schema.safeParse(payload);
  if (!result.success) throw conflict(`DLQ payload is not a retryable ${what}: ${result.error.issues[0]?.message ?? 'invalid'}`);
  return result.data;
}
