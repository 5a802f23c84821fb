import type { Db } from '@waymark/core/db/database';
import { waitFor, type EmulatorEmail } from './email-emulator';

/**
 * The send row behind an email the SES emulator holds. The emulator has the email as soon as SES
 * accepted it, a moment before the send activity records SES's message id on the row, so a test
 * that reads the row right after the email arrives waits for that write.
 */
export function sendOfEmail(db: Db, email: EmulatorEmail) {
  return waitFor(() => db.selectFrom('emailSends').selectAll().where('providerMessageId', '=', email.messageId).executeTakeFirst(), {
    timeoutMs: 30_000,
    what: `the send row of message ${email.messageId}`,
  });
}
