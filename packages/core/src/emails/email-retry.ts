import { z } from 'zod';
import type { TemplateRegistry } from '@waymark/email/email-template';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import { redactedProps } from '@waymark/email/secret-props';
import type { Db } from '../db/database';
import type { JsonObject } from '../db/schema';
import { parseDeadLetterPayload, type DeadLetterRetryHandlers } from '../dlq/retry-handlers';
import { conflict } from '../errors/app-error';
import { checkSendGate } from '../preferences/send-gate';
import { sendCategory } from '../delivery/send-category';
import { requeueFailedEmail } from './email-failures';
import type { SendEmailInput, SendEmailResult } from './send-email-types';
import { secretsNotKept } from './send-render';

/** What emailRetryPayload (email-failures.ts) writes. */
const emailPayload = z.object({
  emailSendId: z.string().optional(),
  templateKey: z.string().min(1),
  to: z.string().min(1),
  from: z.string().optional(),
  userId: z.string().nullable().optional(),
  category: z.string().min(1),
  journeyStateId: z.string().nullable().optional(),
  idempotencyKey: z.string().nullable().optional(),
  data: z.record(z.string(), z.unknown()).default({}),
});

export interface EmailRetryDeps {
  db: Db;
  /** journeys/categories.ts: a required category's send is retried whatever the opt-outs */
  categories: Pick<PreferenceCategories, 'find'>;
  templates: Pick<TemplateRegistry, 'find'>;
  sendEmail(input: SendEmailInput): Promise<SendEmailResult>;
}

/**
 * A failed send goes through the send path again (same row, same idempotency key), after the
 * send gate: a recipient unsubscribed or suppressed since is a 409 (discard the entry instead).
 * A send whose secret props were kept as the placeholder cannot be rebuilt: 409 too, before the
 * row is touched (docs/email.md, "Secret props").
 */
export function registerEmailRetryHandler(handlers: DeadLetterRetryHandlers, deps: EmailRetryDeps): void {
  handlers.register('email', async (entry) => {
    const payload = parseDeadLetterPayload(emailPayload, entry.payload, 'email');
    const gate = await checkSendGate(deps.db, payload.to, sendCategory(deps.categories, payload.category));
    if (!gate.allowed) throw conflict(`The recipient is blocked (${gate.reason ?? 'blocked'}); discard the entry instead`);
    const template = deps.templates.find(payload.templateKey);
    const missing = template === undefined ? [] : redactedProps(template, payload.data);
    if (missing.length > 0) throw conflict(`${secretsNotKept(payload.templateKey, missing)}; discard the entry instead`);
    if (payload.emailSendId !== undefined) await requeueFailedEmail(deps.db, payload.emailSendId);
    // a send that fails again parks a fresh DLQ entry itself; this one stays `retried`
    await deps.sendEmail({
      templateKey: payload.templateKey,
      to: payload.to,
      data: payload.data as JsonObject,
      userId: payload.userId ?? undefined,
      category: payload.category,
      journeyStateId: payload.journeyStateId ?? undefined,
      idempotencyKey: payload.idempotencyKey ?? `dlq-retry:${entry.id}`,
      from: payload.from,
    });
  });
}
