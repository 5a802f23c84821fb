export { conditionOperators, evaluateCondition, evaluateConditions, describeConditionProblem } from './conditions';
export type { ConditionOperator, Properties, PropertyCondition } from './conditions';
export { durationMs, parseDuration } from './duration';
export type { Duration } from './duration';
export { defineJourney, validateJourney, JourneyDefinitionError } from './define-journey';
export type { EntryLimit, EventRule, Journey, JourneyDefinition } from './define-journey';
export type { HasEventOptions, JourneyContext, ReceivedEvent, SendEmailOptions, SendEmailOutcome, WaitForEventOptions } from './context';
