import { createPingActivities, type PingDeps } from './ping';

export type ActivityDeps = PingDeps;

/** Every activity the worker registers, built from explicit dependencies (house rule 3). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createPingActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
