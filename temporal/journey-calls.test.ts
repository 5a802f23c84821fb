import { describe, expect, it } from 'vitest';
import { createEnterJourneyWithActivities } from './activities/enter-journey-with';
import { enterWithVia } from './entry-with-first-step';
import { journeyCallsBy, journeyRunActivityNames, type JourneyRunCalls } from './journey-calls';

describe('journey-calls: the one list of a run’s calls', () => {
  it('names every activity a run can call as recorded histories name them', () => {
    // these names are in run histories: a rename here breaks the replay of every run that made it
    expect(journeyRunActivityNames).toEqual([
      'enterJourney',
      'recordJourneyStep',
      'finishJourneyRun',
      'findJourneyEvents',
      'hasJourneyEvent',
      'recipientTimeZone',
      'sendJourneyEmail',
      'enterJourneyWithRecordJourneyStep',
      'enterJourneyWithFinishJourneyRun',
      'enterJourneyWithFindJourneyEvents',
      'enterJourneyWithHasJourneyEvent',
      'enterJourneyWithRecipientTimeZone',
      'enterJourneyWithSendJourneyEmail',
    ]);
  });

  it('builds a call map with every call of the list, each from the maker under its own name', async () => {
    const asked: string[] = [];
    const calls = journeyCallsBy((name) => {
      asked.push(name);
      return (async () => name) as unknown as JourneyRunCalls[typeof name];
    });
    expect(asked).toEqual(journeyRunActivityNames.filter((name) => !name.startsWith('enterJourneyWith')));
    expect(await (calls.hasJourneyEvent as unknown as () => Promise<string>)()).toBe('hasJourneyEvent');
  });

  it('registers one fused activity per step, which enters and then makes that step', async () => {
    const made: string[] = [];
    const calls = journeyCallsBy(
      (name) =>
        (async () => (
          made.push(name),
          name === 'enterJourney' ? { entered: true, stateId: 's1', userEmail: 'a@b.c' } : name
        )) as unknown as JourneyRunCalls[typeof name],
    );
    const fused = createEnterJourneyWithActivities(calls);
    expect(Object.keys(fused)).toEqual(journeyRunActivityNames.filter((name) => name.startsWith('enterJourneyWith')));
    const entry = { journeyId: 'j', userId: 'u', userEmail: 'a@b.c', workflowId: 'w', runId: 'r', entryLimit: 'once', context: {}, stateId: 's1' } as const;
    const outcome = await enterWithVia(fused)({ entry, step: { name: 'recipientTimeZone', input: { userId: 'u' } } });
    expect(outcome).toEqual({ entered: true, result: 'recipientTimeZone' });
    expect(made).toEqual(['enterJourney', 'recipientTimeZone']);
  });
});
