import type { Duration } from './duration';
import type { LocalTime } from './local-time';

/**
 * The node id a step gets when the journey names none. One definition for the run (temporal's
 * journey context, which writes it as `currentNodeId` and into the journey log) and the journey map
 * (journey-map.ts, which matches the stored ids to the nodes it draws), so the two cannot disagree.
 */
export const defaultNodeIds = {
  sendEmail: (templateKey: string) => templateKey,
  sleep: (duration: Duration) => `sleep:${String(duration)}`,
  sleepUntilLocal: (time: LocalTime) => `sleep-until:${time}`,
  waitForEvent: (name: string) => `wait:${name}`,
};
