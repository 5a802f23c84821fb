import {
  defaultNodeIds,
  durationMs,
  eventPassesWhere,
  formatLocal,
  nextLocalTime,
  quietHoursEnd,
  type Journey,
  type JourneyContext,
  type ReceivedEvent,
} from '@waymark/journey';
import type { JsonObject } from '@waymark/core/db/schema';
import type { JourneyEventSignal, JourneyRunRequest } from '@waymark/core/journeys/orchestrator';
import type { JourneyStepInput } from '@waymark/core/journeys/run-steps';
import type { JourneyProgress } from './journey-signals';
import type { JourneyRuntime } from './journey-runtime';

/** Thrown when a step finds its state no longer live (exited by a rule or an admin). */
export class StateEnded extends Error {
  constructor() {
    super('journey state is no longer active');
    this.name = 'StateEnded';
  }
}

export interface RunContextInput {
  runtime: JourneyRuntime;
  journey: Journey;
  request: JourneyRunRequest;
  stateId: string;
  userEmail: string;
  workflowId: string;
  /** events delivered by signal, oldest first */
  inbox: JourneyEventSignal[];
  /** updated in place around every timer and wait; read by the progress query */
  progress: JourneyProgress;
  /** the person is in the journey's holdout: each send is logged skipped (reason `holdout`) by the send step */
  heldOut?: boolean;
}

/** Builds the `ctx` a journey's run receives: a thin, journey-aware layer over workflow APIs. */
export function createJourneyContext(input: RunContextInput): JourneyContext {
  const { runtime, journey, request, stateId, workflowId, inbox, progress } = input;
  const { calls, shielded } = runtime;
  // time spent in timers and waits, the run's own timeline: sends and steps take none of it, as in
  // simulate (so a wait's look-back below matches the fault-free run's)
  let waitedMs = 0;
  const waitIn = async <T>(nodeId: string, until: number, waitingFor: string | undefined, wait: () => Promise<T>): Promise<T> => {
    Object.assign(progress, { phase: 'waiting', nodeId, until: new Date(until).toISOString(), waitingFor });
    const began = runtime.now();
    try {
      return await wait();
    } finally {
      waitedMs += runtime.now() - began;
      Object.assign(progress, { phase: 'running', nodeId, until: undefined, waitingFor: undefined });
    }
  };
  const enteredAt = new Date(runtime.now());
  const consumed = new Set<string>();
  let step = 0;

  const move = async (stepInput: Omit<JourneyStepInput, 'stateId'>): Promise<void> => {
    progress.nodeId = stepInput.toNodeId;
    const live = await shielded(() => calls.recordJourneyStep({ stateId, ...stepInput }));
    if (!live) throw new StateEnded();
  };

  // asked at each use (a local activity, recorded in the history, so a replay sees the same zone);
  // runs that use neither quiet hours nor sleepUntilLocal never ask, so their histories are unchanged
  const recipientTimeZone = () => shielded(() => calls.recipientTimeZone({ userId: request.userId }));

  /** A durable timer until `until`, logged as `action` with the local time the recipient sees. */
  const holdUntil = async (nodeId: string, until: number, zone: string, action: 'waiting' | 'held', detail: JsonObject): Promise<void> => {
    await move({
      toNodeId: nodeId,
      action,
      status: 'waiting',
      detail: { ...detail, until: new Date(until).toISOString(), localUntil: formatLocal(until, zone), timeZone: zone },
    });
    await waitIn(nodeId, until, undefined, () => runtime.sleep(Math.max(0, until - runtime.now())));
    await move({ toNodeId: nodeId, action: 'resumed', status: 'active' });
  };

  return {
    journey: { id: journey.id, name: journey.name },
    stateId,
    user: { id: request.userId, email: input.userEmail },
    trigger: { event: request.trigger.event, eventId: request.trigger.eventId, occurredAt: request.trigger.occurredAt, properties: request.properties },

    async sendEmail(templateKey, options = {}) {
      const nodeId = options.node ?? defaultNodeIds.sendEmail(templateKey);
      if (journey.quietHours !== undefined) {
        const zone = await recipientTimeZone();
        const end = quietHoursEnd(runtime.now(), zone, journey.quietHours);
        if (end !== undefined) await holdUntil(nodeId, end, zone, 'held', { reason: 'quiet_hours', templateKey });
      }
      step += 1;
      const result = await shielded(() =>
        calls.sendJourneyEmail({
          stateId,
          journeyId: journey.id,
          userId: request.userId,
          userEmail: input.userEmail,
          templateKey,
          nodeId,
          data: (options.data ?? {}) as JsonObject,
          // sendCategoryKey's order (core's delivery/send-category.ts), which workflow code may not import
          category: options.category ?? journey.category ?? 'journey',
          idempotencyKey: `${workflowId}:${nodeId}:${step}`,
          ...(journey.suppress === undefined ? {} : { suppressHours: journey.suppress.hours }),
          ...(input.heldOut === true ? { holdout: true } : {}),
        }),
      );
      if (result.status === 'skipped' && result.reason === 'state_not_active') throw new StateEnded();
      return result;
    },

    async sleep(duration, options = {}) {
      const ms = durationMs(duration);
      const nodeId = options.node ?? defaultNodeIds.sleep(duration);
      await move({
        toNodeId: nodeId,
        action: 'waiting',
        status: 'waiting',
        detail: { duration: String(duration), until: new Date(runtime.now() + ms).toISOString() },
      });
      await waitIn(nodeId, runtime.now() + ms, undefined, () => runtime.sleep(ms));
      await move({ toNodeId: nodeId, action: 'resumed', status: 'active' });
    },

    async sleepUntilLocal(time, options = {}) {
      const zone = await recipientTimeZone();
      const until = nextLocalTime(runtime.now(), zone, time, options.weekdays);
      const nodeId = options.node ?? defaultNodeIds.sleepUntilLocal(time);
      await holdUntil(nodeId, until, zone, 'waiting', { localTime: time, ...(options.weekdays === undefined ? {} : { weekdays: options.weekdays }) });
    },

    async waitForEvent(name, options) {
      const ms = durationMs(options.timeout);
      const nodeId = options.node ?? defaultNodeIds.waitForEvent(name);
      const since = new Date(runtime.now()).toISOString();
      const from = inbox.length;
      await move({
        toNodeId: nodeId,
        action: 'waiting',
        status: 'waiting',
        context: { waitingFor: name },
        detail: { event: name, timeout: String(options.timeout) },
      });
      // an event stored between the decision to wait and the state saying so was not signalled; nor
      // was one stored after the trigger while this run's start waited (a Temporal outage): the
      // look-up reaches back to where the run would have been had it started with its trigger
      const trigger = { eventId: request.trigger.eventId, elapsedMs: waitedMs };
      for (const event of await shielded(() => calls.findJourneyEvents({ userId: request.userId, name, since, trigger }))) {
        if (!inbox.some((seen) => seen.eventId === event.eventId)) inbox.push(event as JourneyEventSignal);
      }
      const match = () =>
        inbox.slice(from).find((event) => event.name === name && !consumed.has(event.eventId) && eventPassesWhere(name, options.where, event.properties));
      await waitIn(nodeId, runtime.now() + ms, name, () => runtime.condition(() => match() !== undefined, ms));
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
        if (options.within !== undefined) bounds.push(runtime.now() - durationMs(options.within));
        const since = bounds.length === 0 ? undefined : new Date(Math.max(...bounds)).toISOString();
        return shielded(() =>
          calls.hasJourneyEvent({
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
