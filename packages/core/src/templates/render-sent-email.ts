import type { Db } from '../db/database';
import type { EmailDeps } from '../emails/email-deps';
import { EMAIL_NOT_FOUND } from '../emails/email-admin';
import { notFound } from '../errors/app-error';
import { ERASED_SEND } from '../emails/erase-sends';
import { previewLinks, renderTemplatePreview } from './template-catalog';

export interface RenderedSentEmail {
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string>;
}

/**
 * The HTML and text of a past send, rebuilt from its template and stored data (the send path
 * keeps data, not the rendered body). Without tracking and with placeholder footer links, so
 * viewing it in the studio never records an open or a click. A template changed since the
 * send renders as it is now; a removed one answers 404, and so does a send whose data an erasure
 * emptied (erase-sends.ts): what it was rendered from is gone.
 */
export async function renderSentEmail(db: Db, deps: Pick<EmailDeps, 'templates' | 'publicUrl'>, id: string): Promise<RenderedSentEmail> {
  const row = await db
    .selectFrom('emailSends')
    .select(['templateKey', 'data', 'fromEmail', 'toEmail', 'subject', 'category', 'providerMessageId', 'locale', 'erasedAt'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (row === undefined) throw notFound(EMAIL_NOT_FOUND);
  if (row.erasedAt !== null) throw notFound(ERASED_SEND);
  if (deps.templates.find(row.templateKey) === undefined) throw notFound(`Template "${row.templateKey}" no longer exists`);
  const rendered = await renderTemplatePreview(deps.templates, row.templateKey, row.data, previewLinks(deps.publicUrl), row.locale);
  const headers: Record<string, string> = { From: row.fromEmail, To: row.toEmail, Subject: row.subject || rendered.subject };
  if (row.providerMessageId !== null) headers['Message-ID'] = row.providerMessageId;
  headers['X-Waymark-Category'] = row.category;
  return { subject: headers.Subject ?? rendered.subject, html: rendered.html, text: rendered.text, headers };
}
