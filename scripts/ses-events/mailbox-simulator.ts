/**
 * The SES event-publishing JSON of one accepted message
 * (https://docs.aws.amazon.com/ses/latest/dg/event-publishing-retrieving-sns-contents.html), and
 * SES's mailbox simulator
 * (https://docs.aws.amazon.com/ses/latest/dg/send-an-email-from-console.html#send-email-simulator):
 * mail to `success@`, `bounce@`, `ooto@`, `complaint@` or `suppressionlist@simulator.amazonses.com`
 * (a `+label` allowed) draws the events SES would publish for it; any other address is delivered.
 */

export const SIMULATOR_DOMAIN = 'simulator.amazonses.com';

export interface AcceptedMessage {
  messageId: string;
  from: string;
  to: string;
  configurationSet: string;
  /** the SendEmail request's EmailTags */
  tags: { name: string; value: string }[];
  at: Date;
}

type Outcome = 'delivered' | 'bounced' | 'suppressed' | 'complained';

/** What SES's mailbox simulator does with mail to `address`; anything but a simulator address is delivered. */
export function simulatorOutcome(address: string): Outcome {
  const at = address.lastIndexOf('@');
  if (at < 0 || address.slice(at + 1).toLowerCase() !== SIMULATOR_DOMAIN) return 'delivered';
  const mailbox = address.slice(0, at).split('+')[0]!.toLowerCase();
  switch (mailbox) {
    case 'bounce':
      return 'bounced';
    case 'suppressionlist':
      return 'suppressed';
    case 'complaint':
      return 'complained';
    // success@ is delivered; ooto@ is delivered too (SES then sends an out-of-office reply, no event)
    default:
      return 'delivered';
  }
}

/** The events, in order, that the configuration set publishes for one accepted message. */
export function sesEventsFor(message: AcceptedMessage): Record<string, unknown>[] {
  const iso = (offsetMs: number) => new Date(message.at.getTime() + offsetMs).toISOString();
  const tags: Record<string, string[]> = {
    'ses:operation': ['SendEmail'],
    'ses:configuration-set': [message.configurationSet],
    'ses:source-ip': ['127.0.0.1'],
    'ses:from-domain': [message.from.slice(message.from.lastIndexOf('@') + 1).replace(/>$/, '')],
    'ses:caller-identity': ['local'],
  };
  for (const tag of message.tags) tags[tag.name] = [tag.value];
  const mail = {
    timestamp: message.at.toISOString(),
    source: message.from,
    sendingAccountId: '000000000000',
    messageId: message.messageId,
    destination: [message.to],
    headersTruncated: false,
    tags,
  };
  const recipient = message.to;
  const send = { eventType: 'Send', mail, send: {} };
  const delivery = {
    eventType: 'Delivery',
    mail,
    delivery: {
      timestamp: iso(200),
      processingTimeMillis: 200,
      recipients: [recipient],
      smtpResponse: '250 2.6.0 Message received',
      reportingMTA: 'a8-1.smtp-out.amazonses.com',
    },
  };
  const bounce = (bounceSubType: string, diagnosticCode: string) => ({
    eventType: 'Bounce',
    mail,
    bounce: {
      bounceType: 'Permanent',
      bounceSubType,
      bouncedRecipients: [{ emailAddress: recipient, action: 'failed', status: '5.1.1', diagnosticCode }],
      timestamp: iso(300),
      feedbackId: `${message.messageId}-bounce`,
      reportingMTA: 'dns; amazonses.com',
    },
  });
  switch (simulatorOutcome(recipient)) {
    case 'delivered':
      return [send, delivery];
    case 'bounced':
      return [send, bounce('General', 'smtp; 550 5.1.1 user unknown')];
    case 'suppressed':
      return [
        send,
        bounce('OnAccountSuppressionList', 'Amazon SES did not send the message to this address because it is on the suppression list for your account.'),
      ];
    case 'complained':
      return [
        send,
        delivery,
        {
          eventType: 'Complaint',
          mail,
          complaint: {
            complainedRecipients: [{ emailAddress: recipient }],
            timestamp: iso(600),
            feedbackId: `${message.messageId}-complaint`,
            complaintFeedbackType: 'abuse',
            userAgent: 'Amazon SES Mailbox Simulator',
            arrivalDate: iso(500),
          },
        },
      ];
  }
}
