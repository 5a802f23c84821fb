import { createAlertActivities, type AlertActivityDeps } from './alerts';
import { createBroadcastActivities, type BroadcastActivityDeps } from './broadcasts';
import { createEnrollBatchActivities, type EnrollBatchActivityDeps } from './enroll-batch';
import { createEnterJourneyWithActivities } from './enter-journey-with';
import { createImportActivities, type ImportActivityDeps } from './import-contacts';
import { createJourneyActivities, type JourneyActivityDeps } from './journey';
import { createSimulationActivities, type SimulationActivityDeps } from './journey-simulation';
import { createOutboundActivities, type OutboundActivityDeps } from './outbound-webhooks';
import { createReplayActivities, type ReplayActivityDeps } from './replay-events';
import { createSendJourneyEmailActivities, type SendJourneyEmailDeps } from './send-journey-email';
import { createSystemEmailActivities, type SystemEmailActivityDeps } from './system-email';

export type ActivityDeps = JourneyActivityDeps &
  SendJourneyEmailDeps &
  ImportActivityDeps &
  AlertActivityDeps &
  OutboundActivityDeps &
  EnrollBatchActivityDeps &
  SimulationActivityDeps &
  ReplayActivityDeps &
  BroadcastActivityDeps &
  SystemEmailActivityDeps;

/** Every activity the worker registers, built from explicit dependencies (docs/contributing.md, "Explicit dependencies"). */
export function createActivities(deps: ActivityDeps) {
  const journey = createJourneyActivities(deps);
  const send = createSendJourneyEmailActivities(deps);
  return {
    ...journey,
    ...send,
    ...createEnterJourneyWithActivities({ ...journey, ...send }),
    ...createImportActivities(deps),
    ...createAlertActivities(deps),
    ...createOutboundActivities(deps),
    ...createEnrollBatchActivities(deps),
    ...createSimulationActivities(deps),
    ...createReplayActivities(deps),
    ...createBroadcastActivities(deps),
    ...createSystemEmailActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
