import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../db/schema';
import type { EmailDeps } from '../emails/email-deps';
import { checkCallerSend } from '../emails/caller-sends';
import { sendEmail, type SendEmailResult } from '../emails/send-email';
import { renderTemplatePreview } from './template-catalog';

export interface SendTestEmailInput {
  templateKey: string;
  to: string;
  data: JsonObject;
  /** the language to send it in (as a contact's `locale` property); undefined: the template's default */
  locale?: string | undefined;
}

/**
 * "Send test to…" from the studio: the data is checked first (a typo answers 400 instead of
 * landing in the DLQ), then the email goes through the one send path, so the test shows exactly
 * what a recipient gets (tracking, footer links, preference gates). Each call is a new send.
 */
export async function sendTestEmail(deps: EmailDeps, input: SendTestEmailInput): Promise<SendEmailResult> {
  checkCallerSend(deps, input);
  await renderTemplatePreview(deps.templates, input.templateKey, input.data, { unsubscribeUrl: deps.publicUrl, preferencesUrl: deps.publicUrl }, input.locale);
  return sendEmail(deps, { templateKey: input.templateKey, to: input.to, data: input.data, locale: input.locale, idempotencyKey: `test:${randomUUID()}` });
}
