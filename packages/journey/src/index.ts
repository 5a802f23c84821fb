export { conditionOperators, evaluateCondition, evaluateConditions, describeConditionProblem } from './conditions';
export type { ConditionOperator, Properties, PropertyCondition } from './conditions';
export { DURATION_EXAMPLES, durationMs, parseDuration, parsePositiveDuration } from './duration';
export { eventPassesWhere } from './machine-hits';
export type { Duration } from './duration';
export { goalValue, holdoutArm, HOLDOUT_BUCKETS } from './outcomes';
export type { HoldoutArm, JourneyGoal, JourneyHoldout } from './outcomes';
export { defineJourney, validateJourney, JourneyDefinitionError } from './define-journey';
export type { EntryLimit, EventRule, Journey, JourneyDefinition } from './define-journey';
export type {
  HasEventOptions,
  JourneyContext,
  SleepUntilLocalOptions,
  ReceivedEvent,
  SendEmailOptions,
  SendEmailOutcome,
  WaitForEventOptions,
} from './context';
export { defineEvents } from './event-catalog';
export { defaultNodeIds } from './node-ids';
export { catalogPropertySamples, traceJourney } from './trace-journey';
export type { JourneyMap, JourneyMapEdge, JourneyMapNode, JourneyMapNodeKind } from './journey-map';
export type { CatalogViolation, EventCatalog, EventCheck, EventProperties, EventSchema, EventSchemas } from './event-catalog';
export { typedJourneyDefiner, uncataloguedEvents } from './typed-journey';
export type { DefineTypedJourney, TemplateDataMap, TypedCondition, TypedEventRule, TypedJourneyContext, TypedJourneyDefinition } from './typed-journey';
export { formatLocal, isTimeZone, nextLocalTime, quietHoursEnd, WEEKDAYS } from './local-time';
export type { LocalTime, QuietHours, Weekday } from './local-time';
export {
  capCounts,
  capPeriodMs,
  capVerdict,
  capsFor,
  defineDeliveryPolicy,
  deliveryPolicyCategoryProblems,
  describeCap,
  DeliveryPolicyError,
  EVERY_CATEGORY,
  NO_DELIVERY_POLICY,
  programHoldoutArm,
  programHoldsCategory,
  reputationThresholds,
  unknownDeliveryAction,
  withPolicyQuietHours,
} from './delivery-policy';
export type { CapPeriod, CapVerdict, DeliveryPolicy, DeliveryPolicyDefinition, FrequencyCap, ProgramHoldout, UnknownDeliveryAction } from './delivery-policy';
export { DEFAULT_REPUTATION_THRESHOLDS } from './reputation-policy';
export type { ReputationThresholds, WarmupPlan } from './reputation-policy';
