import { CancellationScope, condition, patched, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import { durationMs, evaluateConditions, type Journey, type JourneyContext, type ReceivedEvent } from '@waymark/journey';
import type { JsonObject } from '@waymark/core/db/schema';
import type { JourneyEventSignal, JourneyRunRequest } from '@waymark/core/journeys/orchestrator';
import type { JourneyStepInput } from '@waymark/core/journeys/run-steps';
import type { JourneyActivities } from '../activities/journey';
import type { JourneyProgress } from './journey-signals';
import type { SendJourneyEmailActivities } from '../activities/send-journey-email';

/**
 * Activity calls run in a non-cancellable scope: a cancellation arriving mid-write lets the short
 * write finish and surfaces at the next timer or wait (or when the body returns), instead of
 * abandoning an activity that may already have written.
 */
function shielded<T>(call: () => Promise<T>): Promise<T> {
  return CancellationScope.nonCancellable(call);
}

/**
 * The start-to-close timeout is also how long Temporal waits before retrying an activity whose
 * worker died mid-call (nothing else tells the server the attempt is gone), so it is kept close to
 * the slowest healthy call, not to a comfortable upper bound (docs/scaling.md, crash recovery).
 * Mirror writes are single statements that take milliseconds; they must survive a database blip,
 * hence the long, bounded retry.
 */
const mirrorOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 30 },
} as const;
const remoteMirror = proxyActivities<JourneyActivities>(mirrorOptions);
/**
 * The same mirror writes as local activities: they run inside the workflow task on the worker that
 * holds the run, so a step costs no activity task round trip through the server (two fewer
 * dispatches per step and less load on Temporal: docs/scaling.md). A worker that dies mid-write
 * loses the workflow task, and the next worker re-runs the write; every mirror write is safe to
 * repeat (entry finds its own state by workflow id).
 */
const localMirror = proxyLocalActivities<JourneyActivities>(mirrorOptions);

export type JourneyMirror = typeof remoteMirror;

/** Runs started before the mirror writes became local activities replay with remote ones (the patch marker decides, once per run). */
export const LOCAL_MIRROR_PATCH = 'journey-mirror-local-activities';

/** Picks the run's mirror: call once per run, before its first mirror write. */
export function journeyMirror(): JourneyMirror {
  return patched(LOCAL_MIRROR_PATCH) ? localMirror : remoteMirror;
}
/** A send renders, writes a few rows and makes one SES call (p99 well under a second when healthy). */
const email = proxyActivities<SendJourneyEmailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 10 },
});

/** Thrown when a step finds its state no longer live (exited by a rule or an admin). */
export class StateEnded extends Error {
  constructor() {
    super('journey state is no longer active');
    this.name = 'StateEnded';
  }
}

export interface RunContextInput {
  journey: Journey;
  request: JourneyRunRequest;
  stateId: string;
  userEmail: string;
  workflowId: string;
  /** events delivered by signal, oldest first */
  inbox: JourneyEventSignal[];
  /** updated in place around every timer and wait; read by the progress query */
  progress: JourneyProgress;
  /** the run's mirror activities (journeyMirror()) */
  mirror: JourneyMirror;
}

/** Builds the `ctx` a journey's run receives: a thin, journey-aware layer over workflow APIs. */
export function createJourneyContext(input: RunContextInput): JourneyContext {
  const { journey, request, stateId, workflowId, inbox, progress, mirror } = input;
  const waitIn = async <T>(nodeId: string, until: number, waitingFor: string | undefined, wait: () => Promise<T>): Promise<T> => {
    Object.assign(progress, { phase: 'waiting', nodeId, until: new Date(until).toISOString(), waitingFor });
    try {
      return await wait();
    } finally {
      Object.assign(progress, { phase: 'running', nodeId, until: undefined, waitingFor: undefined });
    }
  };
  const enteredAt = new Date(Date.now());
  const consumed = new Set<string>();
  let step = 0;

  const move = async (stepInput: Omit<JourneyStepInput, 'stateId'>): Promise<void> => {
    progress.nodeId = stepInput.toNodeId;
    const live = await shielded(() => mirror.recordJourneyStep({ stateId, ...stepInput }));
    if (!live) throw new StateEnded();
  };

  return {
    journey: { id: journey.id, name: journey.name },
    stateId,
    user: { id: request.userId, email: input.userEmail },
    trigger: { event: request.trigger.event, eventId: request.trigger.eventId, occurredAt: request.trigger.occurredAt, properties: request.properties },

    async sendEmail(templateKey, options = {}) {
      const nodeId = options.node ?? templateKey;
      step += 1;
      const result = await shielded(() =>
        email.sendJourneyEmail({
          stateId,
          journeyId: journey.id,
          userId: request.userId,
          userEmail: input.userEmail,
          templateKey,
          nodeId,
          data: (options.data ?? {}) as JsonObject,
          category: options.category ?? 'journey',
          idempotencyKey: `${workflowId}:${nodeId}:${step}`,
          ...(journey.suppress === undefined ? {} : { suppressHours: journey.suppress.hours }),
        }),
      );
      if (result.status === 'skipped' && result.reason === 'state_not_active') throw new StateEnded();
      return result;
    },

    async sleep(duration, options = {}) {
      const ms = durationMs(duration);
      const nodeId = options.node ?? `sleep:${String(duration)}`;
      await move({
        toNodeId: nodeId,
        action: 'waiting',
        status: 'waiting',
        detail: { duration: String(duration), until: new Date(Date.now() + ms).toISOString() },
      });
      await waitIn(nodeId, Date.now() + ms, undefined, () => sleep(ms));
      await move({ toNodeId: nodeId, action: 'resumed', status: 'active' });
    },

    async waitForEvent(name, options) {
      const ms = durationMs(options.timeout);
      const nodeId = options.node ?? `wait:${name}`;
      const since = new Date(Date.now()).toISOString();
      const from = inbox.length;
      await move({
        toNodeId: nodeId,
        action: 'waiting',
        status: 'waiting',
        context: { waitingFor: name },
        detail: { event: name, timeout: String(options.timeout) },
      });
      // an event stored between the decision to wait and the state saying so was not signalled
      for (const event of await shielded(() => mirror.findJourneyEvents({ userId: request.userId, name, since }))) {
        if (!inbox.some((seen) => seen.eventId === event.eventId)) inbox.push(event as JourneyEventSignal);
      }
      const match = () =>
        inbox.slice(from).find((event) => event.name === name && !consumed.has(event.eventId) && evaluateConditions(options.where, event.properties));
      await waitIn(nodeId, Date.now() + ms, name, () => condition(() => match() !== undefined, ms));
      const event = match();
      if (event !== undefined) consumed.add(event.eventId);
      await move({
        toNodeId: nodeId,
        action: event === undefined ? 'wait_timeout' : 'resumed',
        status: 'active',
        context: { waitingFor: null },
        ...(event === undefined ? {} : { detail: { event: name, eventId: event.eventId } }),
      });
      if (event === undefined) return undefined;
      const received: ReceivedEvent = { eventId: event.eventId, name: event.name, occurredAt: event.occurredAt, properties: event.properties };
      return received;
    },

    history: {
      async hasEvent(name, options = {}) {
        const bounds: number[] = [];
        if (options.since === 'entry') bounds.push(enteredAt.getTime());
        else if (options.since instanceof Date) bounds.push(options.since.getTime());
        if (options.within !== undefined) bounds.push(Date.now() - durationMs(options.within));
        const since = bounds.length === 0 ? undefined : new Date(Math.max(...bounds)).toISOString();
        return shielded(() =>
          mirror.hasJourneyEvent({
            userId: request.userId,
            name,
            ...(since === undefined ? {} : { since }),
            ...(options.where === undefined ? {} : { where: options.where }),
          }),
        );
      },
    },

    async node(id) {
      await move({ toNodeId: id, action: 'node' });
    },
  };
}
