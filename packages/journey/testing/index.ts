// The journey test kit (`@waymark/journey/testing`): Node-only, never imported by workflow code.
// Two modes, one API (docs/journeys.md): testJourney on a virtual clock (the default), and
// testJourneyOnTemporal on the time-skipping server with its start/end/stop hooks.
export { testJourney } from './test-journey';
export { testJourneyOnTemporal, TemporalJourneyTestRun } from './test-journey-on-temporal';
export type { JourneyTestRun, TestJourneyOptions, TestRunStatus } from './test-run';
export type { FakeEvent, JourneyFakes, LogEntry, SentEmail } from './fake-world';
export { createTimeSkippingEnv, endJourneyTestRuns, journeyWorkflowBundle, startJourneyTestServer, stopJourneyTestServer, workflowsPath } from './test-server';
export { simulateJourney } from './simulate';
export type { SimulationInput, SimulationReport } from './simulate';
