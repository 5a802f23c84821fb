import type { z } from 'zod';
import type { JourneyContext, SendEmailOptions, SendEmailOutcome } from './context';
import type { Duration } from './duration';
import type { QuietHours } from './local-time';
import type { JourneyHoldout } from './outcomes';
import { defineJourney, type EntryLimit, type Journey, type JourneyDefinition } from './define-journey';
import type { EventCatalog, EventSchemas } from './event-catalog';

/** A `where` condition checked against an event's properties: a known key, a value of its type. */
export type TypedCondition<P> = {
  [K in keyof P & string]:
    | { type: 'property'; property: K; operator: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains'; value: NonNullable<P[K]> }
    | { type: 'property'; property: K; operator: 'in'; value: readonly NonNullable<P[K]>[] }
    | { type: 'property'; property: K; operator: 'exists'; value?: boolean };
}[keyof P & string];

/** An exitOn rule over the catalog: a catalogued event and conditions on its properties. */
export type TypedEventRule<C extends EventSchemas> = {
  [E in keyof C & string]: { event: E; where?: TypedCondition<z.output<C[E]>>[] };
}[keyof C & string];

/** A goal over the catalog: a catalogued event, conditions on its properties and its value. */
export type TypedGoal<C extends EventSchemas> = {
  [E in keyof C & string]: {
    event: E;
    within: Duration;
    where?: TypedCondition<z.output<C[E]>>[];
    value?: (keyof z.output<C[E]> & string) | ((properties: z.output<C[E]>) => number | undefined);
  };
}[keyof C & string];

/** Template key → the `data` its props schema accepts (journeys/templates/registry.ts). */
export type TemplateDataMap = Record<string, Record<string, unknown>>;

export interface TypedSendEmailOptions<D> extends Omit<SendEmailOptions, 'data'> {
  data?: D;
}

/** `ctx` with the trigger's properties typed and `sendEmail` checked against the template's props. */
export interface TypedJourneyContext<P, T extends TemplateDataMap> extends Omit<JourneyContext, 'trigger' | 'sendEmail'> {
  trigger: Omit<JourneyContext['trigger'], 'properties'> & { properties: P };
  sendEmail<K extends keyof T & string>(templateKey: K, options?: TypedSendEmailOptions<T[K]>): Promise<SendEmailOutcome>;
}

export interface TypedJourneyDefinition<C extends EventSchemas, T extends TemplateDataMap, E extends keyof C & string> {
  id: string;
  name: string;
  description: string;
  enabled?: boolean;
  trigger: { event: E; where?: TypedCondition<z.output<C[E]>>[] };
  entryLimit?: EntryLimit;
  exitOn?: TypedEventRule<C>[];
  suppress?: { hours: number };
  quietHours?: QuietHours;
  category?: string;
  /** the goal event, typed against the catalog (its value: a property name or a function of its properties) */
  goal?: TypedGoal<C>;
  exitOnGoal?: boolean;
  holdout?: JourneyHoldout;
  run(ctx: TypedJourneyContext<z.output<C[E]>, T>): Promise<void>;
}

export type DefineTypedJourney<C extends EventSchemas, T extends TemplateDataMap> = <E extends keyof C & string>(
  definition: TypedJourneyDefinition<C, T, E>,
) => Journey;

/** Journeys made by a typed definer: only their events must be in the catalog (plain ones may name any event). */
const typedJourneys = new WeakSet<Journey>();

/**
 * `defineJourney` bound to an event catalog and a template props map, as types only: a wrong event
 * name, `where` key or value, trigger property or template prop is a compile error. At runtime it
 * is `defineJourney` (the same validation, the same Journey); the catalog itself is not needed
 * here, so a journey file loads no schemas (the workflow bundle evaluates journeys once per run).
 * A plain-JS caller can slip past the types: the journey registry checks typed journeys' events
 * against the catalog when the api and the worker start (`uncataloguedEvents`).
 */
export function typedJourneyDefiner<C extends EventSchemas, T extends TemplateDataMap>(): DefineTypedJourney<C, T> {
  return (definition) => {
    // the typed definition narrows JourneyDefinition (typed ctx, typed conditions) and is one at runtime
    const journey = defineJourney(definition as unknown as JourneyDefinition);
    typedJourneys.add(journey);
    return journey;
  };
}

/** The events a typed journey names (trigger, exit rules) that the catalog lacks; none for a plain journey. */
export function uncataloguedEvents(journey: Journey, catalog: Pick<EventCatalog, 'has'>): string[] {
  if (!typedJourneys.has(journey)) return [];
  return [journey.trigger.event, ...journey.exitOn.map((rule) => rule.event), ...(journey.goal === undefined ? [] : [journey.goal.event])].filter(
    (event) => !catalog.has(event),
  );
}
