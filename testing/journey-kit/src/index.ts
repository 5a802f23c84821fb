// The journey test kit (`@waymark/journey-testing`): Node-only, for tests, never imported by
// production code or workflow code. Two modes, one API (docs/journeys.md): testJourney on a
// virtual clock (the default), and testJourneyOnTemporal on the time-skipping server with its
// start/end/stop hooks. It drives the runner of temporal/ with the journeys of journeys/, so it
// sits above both; the virtual clock, runtime and in-memory world it shares with simulations live
// in temporal/simulation/.
export { testJourney, testJourneys } from './test-journey';
export { testJourneyOnTemporal, TemporalJourneyTestRun } from './test-journey-on-temporal';
export type { Hold, JourneyTestRun, Skip, TestJourneyOptions, TestRunStatus } from './test-run';
export type { FakeEvent, JourneyFakes, LogEntry, SentEmail } from '@waymark/temporal/simulation/fake-world';
export { endJourneyTestRuns, startJourneyTestServer, stopJourneyTestServer } from './test-server';
export { journeyWorkflowBundle } from '@waymark/temporal/test/time-skipping';
