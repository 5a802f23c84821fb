// The journey test kit (`@waymark/journey/testing`): Node-only, never imported by workflow code.
export { testJourney, JourneyTestRun } from './test-journey';
export type { TestJourneyOptions, TestRunStatus } from './test-journey';
export type { FakeEvent, JourneyFakes, LogEntry, SentEmail } from './fake-world';
export { createTimeSkippingEnv, endJourneyTestRuns, journeyWorkflowBundle, startJourneyTestServer, stopJourneyTestServer, workflowsPath } from './test-server';
export { simulateJourney } from './simulate';
export type { SimulationInput, SimulationReport } from './simulate';
