import { TemplateDataError } from '@waymark/email/render-email';
import { renderForSend } from '@waymark/email/render-plan';
import type { TrackableDocument } from '@waymark/email/link-tracking';
import type { EmailLinks } from '@waymark/email/email-template';
import { REDACTED, redactedProps, redactSecretText, secretValues } from '@waymark/email/secret-props';
import type { EmailSendRow, JsonObject } from '../db/schema';
import type { EmailDeps } from './email-deps';
import { buildEmailLinks } from './email-links';
import type { SendEmailResult } from './send-email-types';
import { failForGood } from './send-outcome';

/** A send rendered for its provider call: all but the tracked links, whose ids the caller stores. */
export interface PreparedSend {
  subject: string;
  /** the subject as the row keeps it: a secret it carries (a one-time code) as the placeholder */
  keptSubject: string;
  text: string;
  links: EmailLinks;
  document: TrackableDocument;
}

/**
 * Renders a queued row; a render that cannot succeed (unknown template, bad data) fails the send
 * for good. The row keeps its secret props as the placeholder (docs/email.md, "Secret props"):
 * `live` is the caller's own data, whose values they take. A row whose secrets nobody holds any
 * more (a resend from kept data) fails for good rather than mail the placeholder.
 */
export async function prepareSend(deps: EmailDeps, row: EmailSendRow, live?: JsonObject, liveSubject?: string): Promise<PreparedSend | SendEmailResult> {
  const template = deps.templates.find(row.templateKey);
  if (template === undefined) return failForGood(deps, row, `Unknown email template "${row.templateKey}"`);
  const data = withLiveSecrets(row.data, live);
  const missing = redactedProps(template, data);
  if (missing.length > 0) return failForGood(deps, row, secretsNotKept(row.templateKey, missing));
  const { links, tokens } = await buildEmailLinks(deps.tokens, deps.publicUrl, { externalId: row.userId ?? '', email: row.toEmail }, row.category);
  let rendered;
  try {
    // a secret link is a credential: never copied into tracked_links nor passed through a redirect
    rendered = await renderForSend(template, data, links, { locale: row.locale, tokens, secrets: secretValues(template, data) });
  } catch (error) {
    // bad data or a template bug: retrying cannot help
    return failForGood(deps, row, error instanceof TemplateDataError ? error.message : `Render failed: ${(error as Error).message}`);
  }
  // a subject given at send time, or rendered by an earlier attempt, was stored with the row, so a
  // retry sends the same one; one kept with a secret's placeholder is the live one again
  const subject = row.subject === '' ? rendered.subject : row.subject.includes(REDACTED) ? (liveSubject ?? rendered.subject) : row.subject;
  return { subject, keptSubject: redactSecretText(template, data, subject), text: rendered.text, links, document: rendered.document };
}

/** The kept data with each secret prop the caller still holds put back (undefined `live`: the kept data). */
function withLiveSecrets(kept: JsonObject, live: JsonObject | undefined): JsonObject {
  if (live === undefined) return kept;
  const restored: JsonObject = { ...kept };
  for (const [prop, value] of Object.entries(kept)) if (value === REDACTED && live[prop] !== undefined) restored[prop] = live[prop];
  return restored;
}

/** Why a send from kept data cannot go out (the DLQ retry says the same before it tries). */
export function secretsNotKept(templateKey: string, props: readonly string[]): string {
  return `Template "${templateKey}" carries secret props (${props.join(', ')}) that are not kept after the send; it cannot be sent again from kept data: the person asks for a new one`;
}
