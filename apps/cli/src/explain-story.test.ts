import { describe, expect, it } from 'vitest';
import type { Explanation } from '@waymark/core/journeys/explain';
import { formatExplanation } from './explain-story';

const base: Explanation = {
  contact: { id: '6f1c1f5e-4a55-4a8f-9a52-0b1c0b7a0a01', externalId: 'u_123', email: 'ada@example.com' },
  journey: { id: 'welcome-series', name: 'Welcome series', triggerEvent: 'user.signed_up', enabled: true },
  triggers: [],
  enrollments: [],
};

describe('waymark explain: the printed story', () => {
  it('tells an enrollment step by step, times in the chosen zone', () => {
    const story = formatExplanation(
      {
        ...base,
        triggers: [{ eventId: 'e1', at: new Date('2026-11-20T09:00:00Z'), outcome: 'entered', stateId: 's1' }],
        enrollments: [
          {
            stateId: 's1',
            status: 'exited',
            enteredAt: new Date('2026-11-20T09:00:01Z'),
            triggerEventId: 'e1',
            steps: [
              { at: new Date('2026-11-20T09:00:01Z'), node: 'start', action: 'entered', outcome: 'entered' },
              { at: new Date('2026-11-20T09:00:02Z'), node: 'welcome', action: 'email_sent', outcome: 'sent', templateKey: 'welcome' },
              { at: new Date('2026-11-20T09:00:03Z'), node: 'sleep:2 days', action: 'waiting', outcome: 'waiting until 2026-11-22T09:00:03.000Z' },
              { at: new Date('2026-11-21T10:30:00Z'), node: 'sleep:2 days', action: 'exited', outcome: 'exited by user.deleted at 2026-11-21T10:30:00.000Z' },
            ],
          },
        ],
        template: { key: 'welcome-tips', outcome: 'not sent: the run did not reach it (exited by user.deleted at 2026-11-21T10:30:00.000Z)' },
      },
      { timeZone: 'Europe/Paris' },
    );
    expect(story).toBe(
      [
        'u_123 in Welcome series (welcome-series, starts on user.signed_up)',
        '  Fri 20 Nov, 10:00  user.signed_up → entered',
        '  Enrollment 1 (exited), entered Fri 20 Nov, 10:00:',
        '    Fri 20 Nov, 10:00  start: entered',
        '    Fri 20 Nov, 10:00  welcome @ welcome: sent',
        '    Fri 20 Nov, 10:00  sleep:2 days: waiting until Sun 22 Nov, 10:00',
        '    Sat 21 Nov, 11:30  sleep:2 days: exited by user.deleted at Sat 21 Nov, 11:30',
        '  Template welcome-tips: not sent: the run did not reach it (exited by user.deleted at Sat 21 Nov, 11:30)',
      ].join('\n'),
    );
  });

  it('says why there is no enrollment', () => {
    const story = formatExplanation(
      {
        ...base,
        unavailable: 'journey disabled',
        triggers: [{ eventId: 'e2', at: new Date('2026-11-20T09:00:00Z'), outcome: 'journey disabled' }],
        notEnrolled: 'journey disabled',
      },
      { timeZone: 'UTC' },
    );
    expect(story).toContain('  ! journey disabled: the journey starts nothing right now');
    expect(story).toContain('  Fri 20 Nov, 09:00  user.signed_up → journey disabled');
    expect(story.split('\n').at(-1)).toBe('  Not enrolled: journey disabled');
  });
});
