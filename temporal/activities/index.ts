import { createAlertActivities, type AlertActivityDeps } from './alerts';
import { createImportActivities, type ImportActivityDeps } from './import-contacts';
import { createJourneyActivities, type JourneyActivityDeps } from './journey';
import { createSendJourneyEmailActivities, type SendJourneyEmailDeps } from './send-journey-email';

export type ActivityDeps = JourneyActivityDeps & SendJourneyEmailDeps & ImportActivityDeps & AlertActivityDeps;

/** Every activity the worker registers, built from explicit dependencies (house rule 3). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createJourneyActivities(deps),
    ...createSendJourneyEmailActivities(deps),
    ...createImportActivities(deps),
    ...createAlertActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
