import { describe, expect, it } from 'vitest';
import { bodyOf, localInput, nextVariantId, recipientData, stateOf, type ComposerState } from './form-state';

const fresh = (changes: Partial<ComposerState> = {}): ComposerState => ({
  ...stateOf(undefined),
  name: 'March update',
  templateKey: 'announcement',
  category: 'product-updates',
  segmentId: '5b0c0000-0000-4000-8000-000000000000',
  ...changes,
});

describe('the broadcast composer’s fields', () => {
  it('make the smallest create body, and a patch that clears what is unset', () => {
    const body = bodyOf(fresh());
    expect(body).toEqual({
      create: {
        name: 'March update',
        templateKey: 'announcement',
        category: 'product-updates',
        audience: { segmentId: '5b0c0000-0000-4000-8000-000000000000' },
      },
      patch: {
        name: 'March update',
        templateKey: 'announcement',
        category: 'product-updates',
        audience: { segmentId: '5b0c0000-0000-4000-8000-000000000000' },
        data: null,
        subject: null,
        scheduledAt: null,
        localTime: null,
        variants: null,
        abTest: null,
      },
    });
  });

  it('carry variants, the A/B test, data and a local-time schedule', () => {
    const body = bodyOf(
      fresh({
        audienceKind: 'list',
        listKey: 'newsletter',
        dataText: '{"headline": "Hi"}',
        variants: [
          { id: 'a', subject: 'One', templateKey: '' },
          { id: 'b', subject: '', templateKey: 'announcement-b' },
        ],
        abTest: true,
        testPercent: '10',
        metric: 'human_opens',
        waitMinutes: '60',
        schedule: 'local',
        localTime: '09:00',
        at: '2026-12-01T08:00',
      }),
    );
    expect(body).toMatchObject({
      create: {
        audience: { listKey: 'newsletter' },
        data: { headline: 'Hi' },
        variants: [
          { id: 'a', subject: 'One' },
          { id: 'b', templateKey: 'announcement-b' },
        ],
        abTest: { testFraction: 0.1, metric: 'human_opens', waitMinutes: 60 },
        localTime: '09:00',
        scheduledAt: new Date('2026-12-01T08:00').toISOString(),
      },
    });
  });

  it('say what the API would refuse before asking it', () => {
    expect(bodyOf(fresh({ name: ' ' }))).toEqual({ problem: 'Give the broadcast a name.' });
    expect(bodyOf({ ...stateOf(undefined), name: 'x' })).toEqual({ problem: 'Choose a template.' });
    expect(bodyOf(fresh({ segmentId: '' }))).toEqual({ problem: 'Choose a segment.' });
    expect(bodyOf(fresh({ dataText: '[]' }))).toEqual({ problem: 'Template data must be a JSON object.' });
    expect(bodyOf(fresh({ variants: [{ id: 'a', subject: '', templateKey: '' }] }))).toMatchObject({ problem: expect.stringMatching(/twos to fives/) });
    const twins = [
      { id: 'a', subject: '', templateKey: '' },
      { id: 'a', subject: '', templateKey: '' },
    ];
    expect(bodyOf(fresh({ variants: twins }))).toEqual({ problem: 'Each variant needs an id of its own.' });
    const pair = [twins[0]!, { id: 'b', subject: '', templateKey: '' }];
    expect(bodyOf(fresh({ variants: pair, abTest: true, testPercent: '60' }))).toEqual({ problem: 'The test share is 2 % to 50 % of the audience.' });
    expect(bodyOf(fresh({ schedule: 'at', at: '' }))).toEqual({ problem: 'Choose when to send.' });
    expect(bodyOf(fresh({ schedule: 'local', localTime: '9am' }))).toEqual({ problem: 'The local time is HH:MM, such as 09:00.' });
  });

  it('fill template props from the contact as the send does', () => {
    expect(recipientData({ headline: 'Hi' }, ['headline', 'firstName', 'plan'], { firstName: 'Ada', plan: 'pro', secret: 'x' })).toEqual({
      headline: 'Hi',
      firstName: 'Ada',
      plan: 'pro',
    });
  });

  it('name variants and local times', () => {
    expect(nextVariantId([{ id: 'a', subject: '', templateKey: '' }])).toBe('b');
    expect(localInput(new Date(2026, 10, 26, 7, 5).toISOString())).toBe('2026-11-26T07:05');
  });
});
