import type { DeliveryPolicy, PropertyCondition } from '@waymark/journey';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import type { Config } from '@waymark/core/config/config';
import { contactTimeZone } from '@waymark/core/contacts/time-zone';
import { programHoldoutOfEntry } from '@waymark/core/delivery/program-holdout';
import { sendCategoryKey } from '@waymark/core/delivery/send-category';
import type { Db } from '@waymark/core/db/database';
import type { JsonObject } from '@waymark/core/db/schema';
import type { IngestInput, IngestResult } from '@waymark/core/events/ingest';
import { findUserEventsSince, hasUserEvent, type UserEvent, type WaitTrigger } from '@waymark/core/events/user-history';
import { exitIfLeftBeforeEntry } from '@waymark/core/events/exit-on-entry';
import { recordJourneyRunDeadLetter } from '@waymark/core/journeys/journey-dead-letters';
import type { JourneyRegistry } from '@waymark/core/journeys/registry';
import {
  enterJourney,
  finishJourneyRun,
  recordJourneyStep,
  type EnterJourneyInput,
  type EnterJourneyResult,
  type JourneyStepInput,
} from '@waymark/core/journeys/run-steps';
import type { FinishJourneyInput, JourneyRunCalls } from '../journey-calls';

export interface JourneyActivityDeps {
  db: Db;
  /** journeys/categories.ts: the entry guard lets a required category's journey in whatever the opt-outs */
  categories: PreferenceCategories;
  /** this deployment's journeys: the entry applies their exit rules to events that came before it */
  journeys: Pick<JourneyRegistry, 'find'>;
  /** the ingest pipeline, for lifecycle events (journey:completed / journey:failed) */
  ingest(input: IngestInput): Promise<IngestResult>;
  config: Pick<Config, 'defaultTimeZone'>;
  /** journeys/delivery-policy.ts: the entry records the person's program-holdout arm (migrations/0280) */
  deliveryPolicy: DeliveryPolicy;
}

/** Activities that mirror a journey run in Postgres (states, logs, the user's event history). */
export function createJourneyActivities(deps: JourneyActivityDeps) {
  return {
    /**
     * The entry guards, then the exit rules and the goal over the events stored since the trigger
     * (an exit or goal that came before the run entered, e.g. while its start waited out a Temporal
     * outage): such a state is converted or exited at once, and the run's first step finds it ended. A retry repeats both, harmlessly.
     * The program arm is decided here, not in the run: it follows the worker's policy, as the send
     * step's holdout does, and a run's history need not change when the policy does.
     */
    async enterJourney(input: EnterJourneyInput): Promise<EnterJourneyResult> {
      const programHoldout = programHoldoutOfEntry(deps.deliveryPolicy, deps.categories, sendCategoryKey(input.category), input.userId);
      const entry = await enterJourney(deps.db, programHoldout === undefined ? input : { ...input, programHoldout }, deps.categories);
      const trigger = input.context.trigger as { eventId?: unknown } | undefined;
      if (entry.entered && typeof trigger?.eventId === 'string')
        await exitIfLeftBeforeEntry(deps, { journeyId: input.journeyId, userId: input.userId, triggerEventId: trigger.eventId, stateId: entry.stateId });
      return entry;
    },

    async recordJourneyStep(input: JourneyStepInput): Promise<boolean> {
      return recordJourneyStep(deps.db, input);
    },

    /**
     * Ends the state; a completed or failed run then emits its lifecycle event through the ingest
     * pipeline (so it can trigger other journeys). The idempotency key makes retries harmless.
     */
    async finishJourneyRun(input: FinishJourneyInput): Promise<void> {
      const { journeyName, retryRequest, ...finish } = input;
      const state = await finishJourneyRun(deps.db, finish);
      if (state.status !== input.status || (input.status !== 'completed' && input.status !== 'failed')) return;
      if (input.status === 'failed' && retryRequest !== undefined) {
        // a run that gave up lands in the DLQ; a retry re-runs the journey for this user (docs/operations.md)
        await recordJourneyRunDeadLetter(deps.db, { stateId: input.stateId, request: retryRequest, error: input.errorMessage ?? 'journey failed' });
      }
      const eventProperties: JsonObject = {
        journeyId: state.journeyId,
        journeyName,
        stateId: input.stateId,
        workflowId: state.workflowId,
        status: input.status,
        lastNodeId: state.currentNodeId,
        enteredAt: state.createdAt.toISOString(),
        finishedAt: new Date().toISOString(),
        ...(input.errorMessage === undefined ? {} : { errorMessage: input.errorMessage }),
      };
      await deps.ingest({
        name: `journey:${input.status}`,
        userId: state.userId,
        email: state.userEmail,
        eventProperties,
        idempotencyKey: `journey:${input.status}:${input.stateId}`,
        source: 'lifecycle',
      });
    },

    /** Asked only by runs that use quiet hours or sleepUntilLocal, each time, so a zone set mid-run counts from then. */
    async recipientTimeZone(query: { userId: string }): Promise<string> {
      return contactTimeZone(deps.db, query.userId, deps.config.defaultTimeZone);
    },

    async findJourneyEvents(query: { userId: string; name: string; since: string; trigger?: WaitTrigger }): Promise<UserEvent[]> {
      return findUserEventsSince(deps.db, { userId: query.userId, name: query.name, since: new Date(query.since), trigger: query.trigger });
    },

    async hasJourneyEvent(query: { userId: string; name: string; since?: string; where?: PropertyCondition[] }): Promise<boolean> {
      return hasUserEvent(deps.db, {
        userId: query.userId,
        name: query.name,
        since: query.since === undefined ? undefined : new Date(query.since),
        where: query.where,
      });
    },
  } satisfies Omit<JourneyRunCalls, 'sendJourneyEmail'>;
}
