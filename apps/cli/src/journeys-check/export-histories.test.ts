import { describe, expect, it } from 'vitest';
import { scrubHistory } from './export-histories';

const json = (value: unknown) => ({
  metadata: { encoding: Buffer.from('json/plain').toString('base64') },
  data: Buffer.from(JSON.stringify(value)).toString('base64'),
});
const read = (payload: unknown) => JSON.parse(Buffer.from((payload as { data: string }).data, 'base64').toString('utf8')) as unknown;

describe('scrubHistory', () => {
  it("replaces personal values with stable placeholders and secret props' values with the redaction placeholder; the rest stays", () => {
    const history = {
      events: [
        {
          workflowExecutionStartedEventAttributes: {
            input: { payloads: [json({ userId: 'u-1', userEmail: 'ada@example.com', plan: 'pro', link: 'https://app.example.com/m?t=s3cret' })] },
          },
        },
        {
          activityTaskScheduledEventAttributes: {
            activityType: { name: 'sendJourneyEmail' },
            input: { payloads: [json({ userId: 'u-1', template: 'magic-link', data: { signInUrl: 'https://app.example.com/m?t=s3cret', firstName: 'Ada' } })] },
          },
        },
      ],
    };
    const scrubbed = scrubHistory(history, new Set(['signInUrl'])) as typeof history;
    const started = read(scrubbed.events[0]!.workflowExecutionStartedEventAttributes!.input.payloads[0]);
    const scheduled = read(scrubbed.events[1]!.activityTaskScheduledEventAttributes!.input.payloads[0]);
    // the event property the journey took the link from is redacted as well, by its value
    expect(started).toEqual({ userId: 'person-1', userEmail: 'person-2@example.invalid', plan: 'pro', link: '[redacted]' });
    // the same user id gets the same placeholder across the history
    expect(scheduled).toEqual({ userId: 'person-1', template: 'magic-link', data: { signInUrl: '[redacted]', firstName: 'person-3' } });
  });

  it("replaces the person's values inside a failure's text, as a sealed failure's attributes and as an older history's own fields", () => {
    const refusal = '550 5.1.1 <ada@example.com>: mailbox unavailable (user u-1)';
    const history = {
      events: [
        { workflowExecutionStartedEventAttributes: { input: { payloads: [json({ userId: 'u-1', userEmail: 'ada@example.com' })] } } },
        {
          activityTaskFailedEventAttributes: {
            failure: {
              message: refusal,
              cause: { message: 'Encoded failure', encodedAttributes: json({ message: refusal, stack_trace: `Error: ${refusal}` }) },
            },
          },
        },
      ],
    };
    const scrubbed = scrubHistory(history, new Set()) as typeof history;
    const failure = scrubbed.events[1]!.activityTaskFailedEventAttributes!.failure;
    const scrubbedRefusal = '550 5.1.1 <person-2@example.invalid>: mailbox unavailable (user person-1)';
    expect(failure.message).toBe(scrubbedRefusal);
    expect(failure.cause.message).toBe('Encoded failure');
    expect(read(failure.cause.encodedAttributes)).toEqual({ message: scrubbedRefusal, stack_trace: `Error: ${scrubbedRefusal}` });
    expect(JSON.stringify(scrubbed)).not.toContain('ada@example.com');
  });
});
