import { describe, expect, it } from 'vitest';
import { resumedText, settingsText } from './breaker-words';

describe('resumedText', () => {
  it('names each breaker resumed and what it was, and counts the broadcasts that resumed with it', () => {
    expect(resumedText({ resumed: [{ group: 'marketing', provider: 'gmail', from: 'paused' }], broadcasts: ['b1'] })).toBe(
      'Resumed marketing/gmail (was paused). 1 broadcast the breaker had paused resumed.',
    );
    const broadcasts = Array.from({ length: 1200 }, (_, index) => `b${index}`);
    expect(
      resumedText({
        resumed: [
          { group: 'marketing', provider: 'gmail', from: 'paused' },
          { group: 'transactional', provider: 'yahoo', from: 'slowed' },
        ],
        broadcasts,
      }),
    ).toBe('Resumed marketing/gmail (was paused), transactional/yahoo (was slowed). 1,200 broadcasts the breaker had paused resumed.');
  });

  it('says when no broadcast was paused, for one breaker or several', () => {
    expect(resumedText({ resumed: [{ group: 'marketing', provider: 'yahoo', from: 'slowed' }], broadcasts: [] })).toBe(
      'Resumed marketing/yahoo (was slowed). No broadcast was paused by it.',
    );
    expect(
      resumedText({
        resumed: [
          { group: 'marketing', provider: 'yahoo', from: 'slowed' },
          { group: 'marketing', provider: 'apple', from: 'paused' },
        ],
        broadcasts: [],
      }),
    ).toBe('Resumed marketing/yahoo (was slowed), marketing/apple (was paused). No broadcast was paused by them.');
  });

  it('says there was nothing to resume when another admin got there first', () => {
    expect(resumedText({ resumed: [], broadcasts: [] })).toBe('Nothing to resume: no breaker was slowed or paused any more.');
  });
});

describe('settingsText', () => {
  it('writes the thresholds as they were set and the hours in words', () => {
    expect(
      settingsText({
        cooldownHours: 1,
        windowHours: 24,
        minSends: 500,
        thresholds: { slowBounceRate: 0.02, slowComplaintRate: 0.001, pauseBounceRate: 0.05, pauseComplaintRate: 0.003 },
      }),
    ).toBe(
      'Per category group and mailbox provider, over the last 24 hours and once it has 500 sends: slowed from 2 % bounces or 0.1 % complaints, ' +
        'paused from 5 % or 0.3 %; back to ok by itself after 1 hour under the slow thresholds.',
    );
  });
});
