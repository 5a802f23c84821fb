// The workflow bundle's entry point (Worker.create({ workflowsPath })): every workflow type the
// worker hosts is exported from here. It is the one place Temporal requires such a list.
export { alertEvaluationWorkflow } from './alerts';
export { broadcastWorkflow } from './broadcast';
export { enrollBatchWorkflow } from './enroll-batch';
export { importContactsWorkflow } from './import-contacts';
export { journeyWorkflow } from './journey';
export { journeySimulationWorkflow } from './journey-simulation';
export { outboundEventWorkflow } from './outbound-event';
export { replayEventsWorkflow } from './replay-events';
export { systemEmailWorkflow } from './system-email';
