import { setTimeout as sleep } from 'node:timers/promises';
import { isAppError } from '../errors/app-error';
import type { EmailDeps } from './email-deps';
import { DEFAULT_MAX_SEND_ATTEMPTS, failForGood, findSendsByIdempotencyKeys, sendEmail, type SendEmailInput, type SendEmailResult } from './send-email';

export interface SendUntilSettledOptions {
  /** waits between attempts after a thrown error (the last one repeats); default 1, 2, 4, 8, 16 s */
  backoffMs?: readonly number[];
  /**
   * Thrown errors survived before the loop gives up. The send path counts provider errors itself
   * and fails the send into the DLQ after its `maxAttempts`; this bound is for the errors it does
   * not count (SES throttling, the database unreachable), so the loop ends either way.
   */
  maxErrors?: number;
}

const DEFAULT_BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 16_000];

/**
 * A send from a process with no durable retry around it (the api's password-reset and invitation
 * emails while Temporal cannot be reached to start their run: system-emails.ts). `sendEmail` leaves a provider error and a send-rate deferral
 * to its caller's retry; a journey has Temporal's, this caller has only this loop. It calls again
 * with the same idempotency key until the send settles: sent, skipped, or failed for good (after
 * the send path's attempts, parked in the DLQ where an operator can retry it).
 */
export async function sendUntilSettled(deps: EmailDeps, input: SendEmailInput, options: SendUntilSettledOptions = {}): Promise<SendEmailResult> {
  const backoff = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const maxErrors = options.maxErrors ?? (input.maxAttempts ?? DEFAULT_MAX_SEND_ATTEMPTS) + 3;
  let errors = 0;
  for (;;) {
    let result: SendEmailResult;
    try {
      result = await sendEmail(deps, input);
    } catch (error) {
      // a 4xx (unknown template) cannot succeed on a retry
      if (isAppError(error)) throw error;
      if (++errors >= maxErrors) return giveUp(deps, input.idempotencyKey, error);
      const waitMs = backoff[Math.min(errors, backoff.length) - 1] ?? 0;
      deps.logger?.warn({ err: error, idempotencyKey: input.idempotencyKey, attempt: errors, retryInMs: waitMs }, 'email send failed; retrying');
      await sleep(waitMs);
      continue;
    }
    if (result.status !== 'deferred') return result;
    // the send rate kept a slot for this key at retryAt (or the suppress window ends then)
    await sleep(Math.max(0, result.retryAt.getTime() - Date.now()));
  }
}

/**
 * The send's row, if it was written and not accepted, ends failed in the DLQ (an operator can
 * retry it there) rather than waiting `queued` for a retry nobody will make. Without a row, or
 * when the database cannot record it either, the error is thrown for the caller to log.
 */
async function giveUp(deps: EmailDeps, idempotencyKey: string, error: unknown): Promise<SendEmailResult> {
  const row = (await findSendsByIdempotencyKeys(deps.db, [idempotencyKey])).get(idempotencyKey);
  if (row === undefined) throw error;
  return failForGood(deps, row, `Gave up in the sending process: ${(error as Error).message}`);
}
