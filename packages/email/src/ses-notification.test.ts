import { describe, expect, it } from 'vitest';
import { parseSesNotification } from './ses-notification';

const mail = { messageId: 'msg-1', destination: ['a@example.com'] };

describe('parseSesNotification', () => {
  it.each([
    [
      { eventType: 'Delivery', mail, delivery: { timestamp: '2026-01-01T00:00:00.000Z' } },
      { kind: 'delivered', messageId: 'msg-1' },
    ],
    [{ notificationType: 'Delivery', mail }, { kind: 'delivered' }],
    [
      { eventType: 'Bounce', mail, bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: 'a@example.com' }] } },
      { kind: 'bounced', permanent: true, recipients: ['a@example.com'] },
    ],
    [
      { notificationType: 'Bounce', mail, bounce: { bounceType: 'Transient', bouncedRecipients: [] } },
      { kind: 'bounced', permanent: false },
    ],
    [
      { eventType: 'Complaint', mail, complaint: { complainedRecipients: [{ emailAddress: 'a@example.com' }] } },
      { kind: 'complained', recipients: ['a@example.com'] },
    ],
    [{ eventType: 'Open', mail, open: {} }, { kind: 'opened' }],
    [{ eventType: 'Click', mail, click: { link: 'https://x' } }, { kind: 'clicked' }],
    [
      { eventType: 'Reject', mail, reject: { reason: 'Bad content' } },
      { kind: 'rejected', reason: 'Bad content' },
    ],
    [
      { eventType: 'Send', mail: { ...mail, timestamp: '2026-01-01T00:00:00.000Z' }, send: {} },
      { kind: 'sent', messageId: 'msg-1', at: new Date('2026-01-01T00:00:00.000Z'), sesType: 'Send' },
    ],
    [
      { eventType: 'Send', mail: { ...mail, tags: { waymark_email_send_id: ['5f0c2a38-5d7a-4a7e-9c55-1f7a0e0d9b11'], ses_operation: ['SendEmail'] } } },
      { kind: 'sent', emailSendId: '5f0c2a38-5d7a-4a7e-9c55-1f7a0e0d9b11' },
    ],
    [
      { notificationType: 'Delivery', mail },
      { kind: 'delivered', sesType: 'Delivery' },
    ],
    [{ eventType: 'DeliveryDelay', mail, deliveryDelay: {} }, { kind: 'ignored' }],
  ])('%o', (payload, expected) => {
    expect(parseSesNotification(JSON.stringify(payload))).toMatchObject(expected);
  });

  it.each(['not json', '{}', '{"eventType":"Delivery"}', '[]'])('ignores %s', (text) => {
    expect(parseSesNotification(text)).toBeUndefined();
  });
});
