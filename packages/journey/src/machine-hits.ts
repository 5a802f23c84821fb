import { evaluateConditions, type Properties, type PropertyCondition } from './conditions';

/** The tracking events that say whether a machine made them (`machine`, `machineReason`). */
const TRACKING_EVENTS: readonly string[] = ['email.opened', 'email.link_clicked'];

/**
 * Whether an event passes a journey rule's `where` (trigger, waitForEvent, exitOn). Opens and
 * clicks made by machines — link scanners, Apple's mail proxy (`machine: true` on
 * email.opened / email.link_clicked, docs/email.md "Machine opens and clicks") — pass only a
 * `where` that names `machine`: a journey waiting for a person to click is not moved by a
 * scanner, and an author who wants machine hits asks for them (`machine eq true`). Pure and
 * workflow-safe.
 */
export function eventPassesWhere(event: string, where: readonly PropertyCondition[] | undefined, properties: Properties): boolean {
  const machineHit = TRACKING_EVENTS.includes(event) && properties.machine === true;
  if (machineHit && !(where ?? []).some((condition) => condition.property === 'machine')) return false;
  return evaluateConditions(where, properties);
}
