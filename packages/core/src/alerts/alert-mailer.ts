import { escapeHtml } from '@waymark/email/escape-html';
import type { EmailTransport } from '@waymark/email/ses-transport';
import type { AlertMailer } from './alert-delivery';

/** The email channel: a plain operator notice through the service's SES transport (no tracking, no gate). */
export function createAlertMailer(transport: EmailTransport, from: string): AlertMailer {
  return async (message) => {
    await transport.send({
      from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: `<p>${escapeHtml(message.text)}</p>`,
      headers: [],
    });
  };
}
