import type { Insertable } from 'kysely';
import { resolveLocale } from '@waymark/email/message-catalog';
import { redactSecrets, redactSecretText } from '@waymark/email/secret-props';
import type { Db } from '../db/database';
import { runNamed } from '../db/named-statements';
import type { EmailSendRow, EmailSendsTable } from '../db/schema';
import type { EmailDeps } from './email-deps';
import type { SendEmailInput } from './send-email-types';

/**
 * Every column of a send's row, by name: what the send path's statements sent by name read and
 * return instead of `*` (named-statements.ts). A record, so the compiler refuses a column missing.
 */
const emailSendColumnSet: Record<keyof EmailSendRow, true> = {
  id: true,
  journeyStateId: true,
  userId: true,
  templateKey: true,
  providerMessageId: true,
  fromEmail: true,
  toEmail: true,
  subject: true,
  category: true,
  status: true,
  idempotencyKey: true,
  data: true,
  errorMessage: true,
  sentAt: true,
  deliveredAt: true,
  openedAt: true,
  clickedAt: true,
  humanOpenedAt: true,
  humanClickedAt: true,
  bouncedAt: true,
  complainedAt: true,
  sendStartedAt: true,
  sendAttempts: true,
  broadcastId: true,
  locale: true,
  erasedAt: true,
  createdAt: true,
  updatedAt: true,
};
export const EMAIL_SEND_COLUMNS = Object.keys(emailSendColumnSet) as (keyof EmailSendRow)[];

export async function findByIdempotencyKey(db: Db, idempotencyKey: string): Promise<EmailSendRow | undefined> {
  return db.selectFrom('emailSends').selectAll().where('idempotencyKey', '=', idempotencyKey).executeTakeFirst();
}

/** The existing sends of `idempotencyKeys` in one query, by key: what a caller sending a batch passes as `admitted.row`. */
export async function findSendsByIdempotencyKeys(db: Db, idempotencyKeys: readonly string[]): Promise<Map<string, EmailSendRow>> {
  if (idempotencyKeys.length === 0) return new Map();
  const rows = await db
    .selectFrom('emailSends')
    .selectAll()
    .where('idempotencyKey', 'in', [...idempotencyKeys])
    .execute();
  return new Map(rows.map((row) => [row.idempotencyKey!, row]));
}

/** The queued row of a send, as first written. */
export function queuedSendValues(deps: Pick<EmailDeps, 'from' | 'templates'>, input: SendEmailInput, category: string): Insertable<EmailSendsTable> {
  const template = deps.templates.find(input.templateKey);
  const data = input.data ?? {};
  return {
    idempotencyKey: input.idempotencyKey,
    templateKey: input.templateKey,
    toEmail: input.to,
    fromEmail: input.from ?? deps.from,
    userId: input.userId ?? null,
    journeyStateId: input.journeyStateId ?? null,
    broadcastId: input.broadcastId ?? null,
    ...(input.subject === undefined ? {} : { subject: template === undefined ? input.subject : redactSecretText(template, data, input.subject) }),
    category,
    // chosen once, with the row: every attempt renders the same language, and the studio shows it
    locale: template === undefined ? null : resolveLocale(template.messages, input.locale),
    // secret props are used for the send and kept as the placeholder (docs/email.md, "Secret props")
    data: JSON.stringify(template === undefined ? data : redactSecrets(template, data)),
    status: 'queued',
  };
}

export async function createQueuedSend(deps: EmailDeps, input: SendEmailInput, category: string): Promise<EmailSendRow> {
  // by name: every journey email writes one (a shape with a subject given, one without)
  const [inserted] = await runNamed(
    deps.db,
    deps.db
      .insertInto('emailSends')
      .values(queuedSendValues(deps, input, category))
      .onConflict((oc) => oc.column('idempotencyKey').doNothing())
      .returning(EMAIL_SEND_COLUMNS),
  );
  // a concurrent attempt with the same key created it first: continue with that row
  return inserted ?? (await findByIdempotencyKey(deps.db, input.idempotencyKey))!;
}
