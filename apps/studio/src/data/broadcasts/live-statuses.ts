import type { components } from '../../api/schema';

type Status = components['schemas']['Broadcast']['status'];

/** While a broadcast is in one of these, the worker is changing it: its screens refresh on their own. */
const live = new Set<Status>(['scheduled', 'sending', 'testing']);

/** How often a screen showing broadcasts in these statuses asks again (ms), or false when none is live. */
export function refreshWhileLive(statuses: Status[]): number | false {
  return statuses.some((status) => live.has(status)) ? 2_000 : false;
}
