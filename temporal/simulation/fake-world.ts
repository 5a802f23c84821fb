import { randomUUID } from 'node:crypto';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { primitiveProperties, type PrimitiveProperties } from '@waymark/core/journeys/orchestrator';
import { definePreferenceCategories } from '@waymark/email/preference-categories';
import { admitSends, DEFAULT_REPUTATION_RECHECK_MS, type AdmissionPorts } from '@waymark/core/delivery/admit-sends';
import { cappedSend, type CappedSend } from '@waymark/core/delivery/frequency-caps';
import { exemptRequiredCategories } from '@waymark/core/delivery/required-categories';
import { mailboxProviderOf } from '@waymark/core/delivery/mailbox-provider';
import { breakerKeyOf } from '@waymark/core/deliverability/reputation-counts';
import { reputationHold } from '@waymark/core/deliverability/reputation-hold';
import { nextWarmupDay, warmupDayOf } from '@waymark/core/deliverability/warmup';
import { journeyAdmissionBatch, journeyAdmissionStep } from '@waymark/core/journeys/journey-admission';
import type { SendJourneyEmailInput, SendJourneyEmailResult } from '@waymark/core/journeys/journey-email';
import { sendCategory, sendCategoryKey } from '@waymark/core/delivery/send-category';
import { sendGateResult, type SendBlockReason, type SendGateVerdicts } from '@waymark/core/preferences/send-gate';
import { categories } from '@waymark/journeys/categories';
import type * as TemplateRegistry from '@waymark/journeys/templates/registry';
import { createEnterJourneyWithActivities } from '../activities/enter-journey-with';
import type { EnterJourneyWithActivities } from '../entry-with-first-step';
import type { JourneyRunCalls } from '../journey-calls';
import { z } from 'zod';
import { evaluateConditions, NO_DELIVERY_POLICY, type DeliveryPolicy, type Properties, durationMs, type Duration } from '@waymark/journey';

/** The activities a journey run calls (journey-calls.ts): its calls, and each made with the entry. */
export type JourneyRunActivities = JourneyRunCalls & EnterJourneyWithActivities;

export type RunStatus = 'active' | 'waiting' | 'completed' | 'exited' | 'failed';

/** An event of the user's history, as a fake answers `ctx.history.hasEvent` and waits from it. */
export interface FakeEvent {
  name: string;
  properties?: Properties;
  /** how long before the run started it happened (default: just before) */
  ago?: Duration;
}

/** How the in-memory world answers the run; everything optional. */
export interface JourneyFakes {
  /** the address is bounce-suppressed: entry is refused as the real send gate refuses it */
  suppressed?: boolean;
  /** `'all'` or the preference categories the user left (`'journey'` is the default category) */
  unsubscribed?: 'all' | string[];
  /** the user's earlier events */
  events?: FakeEvent[];
  /** a journey email reached this address this long before the run started (exercises `suppress.hours`) */
  lastEmailAgo?: Duration;
  /** template keys whose send fails for good (`email_failed`; the journey goes on, as in production) */
  failingTemplates?: string[];
  /** every send throws a non-retryable error with this message: the run fails, as after an outage that outlasts the retries */
  sendOutage?: string;
  /** the recipient's IANA time zone, as their contact's `timezone` property or DEFAULT_TIMEZONE gives it (default 'UTC') */
  timeZone?: string;
  /** emails that reached the address before the run started (any journey or broadcast): what the policy's frequency caps count */
  sentBefore?: { category: string; ago: Duration }[];
  /** the reputation breaker has paused marketing mail to the address's mailbox provider, for the whole test (docs/email.md, "Reputation breaker") */
  reputationPaused?: boolean;
  /** marketing sends the warm-up allowance of the run's first (UTC) day still lets through (docs/email.md, "Warm-up"); later days are not limited; default: no ramp */
  warmupLeft?: number;
}

export interface SentEmail {
  templateKey: string;
  node: string;
  data: Record<string, unknown>;
  category: string;
  /** test-clock time of the send */
  at: Date;
}

export interface LogEntry {
  action: string;
  node: string;
  detail?: Record<string, unknown>;
  at: Date;
}

export interface StoredEvent {
  eventId: string;
  name: string;
  properties: PrimitiveProperties;
  occurredAt: Date;
}

/**
 * One user's world as the journey activities see it (state row, logs, sends, events,
 * preferences), kept in memory. Several runs of the same user share it, so the entry limit holds.
 */
export class FakeWorld {
  readonly events: StoredEvent[] = [];
  readonly runs = new Map<string, FakeRun>();
  /** journey ids the user entered, for entryLimit 'once' */
  readonly entered = new Set<string>();
  lastEmailAt: Date | undefined;
  /** every email to the address, by any run of this world or before it: what the frequency caps count */
  readonly sends: { at: number; category: string }[] = [];

  /** the delivery policy as the send paths apply it: required categories exempt from every cap */
  readonly policy: DeliveryPolicy;
  private warmupLeft: number | undefined;
  /** the cap room admitted sends hold until they have answered, by idempotency key */
  private readonly capClaims = new Map<string, { at: number; category: string }>();
  /** the UTC day `warmupLeft` is of: a later day's allowance is not limited */
  private readonly warmupDay: string;

  constructor(
    readonly fakes: JourneyFakes,
    readonly now: () => Promise<Date>,
    startedAt: Date,
    /** the delivery policy whose frequency caps and program holdout the send fake applies (journeys/delivery-policy.ts in the kit) */
    policy: DeliveryPolicy = NO_DELIVERY_POLICY,
  ) {
    this.policy = exemptRequiredCategories(policy, kitCategories);
    this.warmupLeft = fakes.warmupLeft;
    this.warmupDay = warmupDayOf(startedAt);
    for (const send of fakes.sentBefore ?? []) this.sends.push({ at: startedAt.getTime() - durationMs(send.ago), category: send.category });
    for (const event of fakes.events ?? []) {
      const ago = event.ago === undefined ? 1 : durationMs(event.ago);
      this.events.push({
        eventId: randomUUID(),
        name: event.name,
        properties: primitiveProperties(event.properties),
        occurredAt: new Date(startedAt.getTime() - ago),
      });
    }
    if (fakes.lastEmailAgo !== undefined) this.lastEmailAt = new Date(startedAt.getTime() - durationMs(fakes.lastEmailAgo));
  }

  record(name: string, properties: PrimitiveProperties, occurredAt: Date): StoredEvent {
    const event = { eventId: randomUUID(), name, properties, occurredAt };
    this.events.push(event);
    return event;
  }

  /** The sends of `keys` have answered: their cap room is theirs no more (a sent one counts in `sends`). */
  releaseCapClaims(keys: readonly string[]): void {
    for (const key of keys) this.capClaims.delete(key);
  }

  /** The address's preference rows as the send gate aggregates them. */
  private gateVerdicts(category: string): SendGateVerdicts {
    const unsubscribed = this.fakes.unsubscribed;
    return {
      suppressed: this.fakes.suppressed === true,
      unsubscribedAll: unsubscribed === 'all',
      categoryOff: Array.isArray(unsubscribed) && unsubscribed.includes(category),
    };
  }

  /** The send gate (core's one rule, required categories included): the reason a send in `category` is refused, if any. */
  blocked(category: string): SendBlockReason | undefined {
    return sendGateResult(this.gateVerdicts(category), sendCategory(kitCategories, category)).reason;
  }

  /**
   * The world's rows as admitSends asks them (core's delivery/admit-sends.ts): the same order and
   * rules as the send paths, over memory. Sends are decided one at a time, so a cap claim is the
   * verdict alone, and the sends list counts a send once it is made.
   */
  admission(now: Date): AdmissionPorts {
    return {
      now,
      categories: kitCategories,
      policy: this.policy,
      reputationRecheckMs: DEFAULT_REPUTATION_RECHECK_MS,
      gate: async (addresses, category) => {
        const key = typeof category === 'string' ? category : category.key;
        return new Map(addresses.map((address) => [address.toLowerCase(), this.gateVerdicts(key)]));
      },
      // core's reputationHold over a snapshot with the address's provider paused (or none)
      reputationHold: async (address) => {
        const tripped = new Map<string, 'paused'>();
        if (this.fakes.reputationPaused === true) tripped.set(breakerKeyOf({ group: 'marketing', provider: mailboxProviderOf(address) }), 'paused');
        const hold = reputationHold({ tripped }, { required: false, to: address });
        return hold.held ? hold.provider : undefined;
      },
      // as in production, an admitted send holds a claim that counts until it has answered, so runs deciding at once count each other
      claimCaps: async (sends, category) => {
        const over = new Map<string, CappedSend>();
        for (const send of sends) {
          const verdict = cappedSend(this.policy, category, now, [...this.sends, ...this.capClaims.values()]);
          if (verdict === undefined) this.capClaims.set(send.key, { at: now.getTime(), category });
          else over.set(send.key, verdict);
        }
        return over;
      },
      releaseCaps: async (keys) => this.releaseCapClaims(keys),
      lastJourneySentAt: async () => this.lastEmailAt,
      claimWarmup: async (want) => {
        const until = nextWarmupDay(now);
        if (this.warmupLeft === undefined || warmupDayOf(now) !== this.warmupDay) return { granted: want, until };
        const granted = Math.min(want, this.warmupLeft);
        this.warmupLeft -= granted;
        return { granted, until };
      },
    };
  }
}

/** The kit's categories (journeys/categories.ts), as the runtime defines them. */
const kitCategories = definePreferenceCategories(categories);

export interface Conversion {
  at: Date;
  event: string;
  eventId: string;
  value: number | null;
}

/** What one run wrote, in order. */
export class FakeRun {
  status: RunStatus | undefined;
  stateId: string | undefined;
  waitingFor: string | null = null;
  /** the event whose exit rule ended the run, if one did */
  exitedBy: string | undefined;
  errorMessage: string | undefined;
  /** set while a send sits in the journey's suppress window (the activity is retried at that time) */
  deferredUntil: Date | undefined;
  readonly sent: SentEmail[] = [];
  readonly logs: LogEntry[] = [];
  /** the person's arm as the entry recorded it (undefined: the journey measures nothing) */
  holdout: boolean | undefined;
  enteredAt: Date | undefined;
  /** the goal met (docs/journeys.md, "Goals, holdouts and lift") */
  converted: Conversion | undefined;

  constructor(
    readonly world: FakeWorld,
    readonly journeyId: string,
    /** the journey's exit check (route-event-to-run.ts, `exitsRun`): the entry applies it to events since the trigger */
    private readonly exits: (event: StoredEvent) => boolean = () => false,
  ) {}

  get live(): boolean {
    return this.status === 'active' || this.status === 'waiting';
  }

  async log(action: string, node: string, detail?: Record<string, unknown>): Promise<void> {
    this.logs.push({ action, node, ...(detail === undefined ? {} : { detail }), at: await this.world.now() });
  }

  /** An exit rule matched `event`: the state is `exited` at once, as the ingest request marks it. */
  exitBy(event: StoredEvent, reason: 'exit_rule' | 'goal' = 'exit_rule'): void {
    this.status = 'exited';
    this.exitedBy = event.name;
    this.logs.push({ action: 'exited', node: this.logs.at(-1)?.node ?? 'start', detail: { reason, event: event.name }, at: event.occurredAt });
  }

  /** The goal's event arrived within its window: the enrollment converts, as the ingest statement records it. */
  convertBy(event: StoredEvent, value: number | null): void {
    this.converted = { at: event.occurredAt, event: event.name, eventId: event.eventId, value };
    this.logs.push({ action: 'converted', node: this.logs.at(-1)?.node ?? 'start', detail: { event: event.name, value }, at: event.occurredAt });
  }

  /** The send path past admission: a send outage, a template problem, else the send and its log. */
  private async deliver(input: SendJourneyEmailInput, now: Date): Promise<SendJourneyEmailResult> {
    const world = this.world;
    if (world.fakes.sendOutage !== undefined) throw ApplicationFailure.nonRetryable(world.fakes.sendOutage, 'SendOutage');
    const problem =
      world.fakes.failingTemplates?.includes(input.templateKey) === true ? 'failing template (fake)' : await templateProblem(input.templateKey, input.data);
    if (problem !== undefined) {
      await this.log('email_failed', input.nodeId, { templateKey: input.templateKey, reason: problem });
      return { status: 'failed', reason: problem };
    }
    const emailSendId = randomUUID();
    world.lastEmailAt = now;
    world.sends.push({ at: now.getTime(), category: input.category });
    this.sent.push({ templateKey: input.templateKey, node: input.nodeId, data: input.data, category: input.category, at: now });
    await this.log('email_sent', input.nodeId, { templateKey: input.templateKey, emailSendId });
    return { status: 'sent', emailSendId };
  }

  /** The activities of this run, behaving as the Postgres-backed ones do. */
  activities(): JourneyRunActivities {
    const world = this.world;
    const calls: JourneyRunCalls = {
      enterJourney: async (input) => {
        if (this.stateId !== undefined) return { entered: true, stateId: this.stateId, userEmail: input.userEmail };
        const blocked = world.blocked(sendCategoryKey(input.category));
        if (blocked !== undefined) return { entered: false, reason: blocked };
        if (input.entryLimit === 'once' && world.entered.has(input.journeyId)) return { entered: false, reason: 'entry_limit' };
        if ([...world.runs.values()].some((run) => run !== this && run.journeyId === input.journeyId && run.live))
          return { entered: false, reason: 'already_enrolled' };
        world.entered.add(input.journeyId);
        this.stateId = input.stateId ?? randomUUID();
        this.status = 'active';
        this.holdout = input.holdout;
        this.enteredAt = await world.now();
        await this.log('entered', 'start', input.context);
        // as the worker's entry does (core/events/exit-on-entry.ts): an exit event stored after
        // the trigger but before the entry exits the state at once
        const triggerId = (input.context.trigger as { eventId?: string } | undefined)?.eventId;
        const since = world.events.findIndex((event) => event.eventId === triggerId);
        const exit = since < 0 ? undefined : world.events.slice(since + 1).find((event) => this.exits(event));
        if (exit !== undefined) this.exitBy(exit);
        return { entered: true, stateId: this.stateId, userEmail: input.userEmail };
      },
      recordJourneyStep: async (input) => {
        if (!this.live) return false;
        if (input.status !== undefined) this.status = input.status as RunStatus;
        const waitingFor = (input.context as { waitingFor?: string | null } | undefined)?.waitingFor;
        if (waitingFor !== undefined) this.waitingFor = waitingFor;
        await this.log(input.action, input.toNodeId, input.detail);
        return true;
      },
      finishJourneyRun: async (input) => {
        if (!this.live) return;
        this.status = input.status;
        this.waitingFor = null;
        if (input.errorMessage !== undefined) this.errorMessage = input.errorMessage;
        await this.log(input.status, this.logs.at(-1)?.node ?? 'start', input.errorMessage === undefined ? undefined : { errorMessage: input.errorMessage });
      },
      findJourneyEvents: async (query) =>
        world.events
          .filter((event) => event.name === query.name && event.occurredAt.getTime() >= Date.parse(query.since))
          .map((event) => ({ eventId: event.eventId, name: event.name, occurredAt: event.occurredAt.toISOString(), properties: event.properties })),
      hasJourneyEvent: async (query) =>
        world.events.some(
          (event) =>
            event.name === query.name &&
            (query.since === undefined || event.occurredAt.getTime() >= Date.parse(query.since)) &&
            evaluateConditions(query.where, event.properties),
        ),
      recipientTimeZone: async () => world.fakes.timeZone ?? 'UTC',
      sendJourneyEmail: async (input) => {
        if (!this.live) return { status: 'skipped', reason: 'state_not_active' };
        // as core's deliverJourneyEmail: admitSends over the world's rows, then the same log
        const now = await world.now();
        const admission = (await admitSends(world.admission(now), journeyAdmissionBatch(input, false)))[0]!;
        if (admission.verdict !== 'send') {
          const { outcome, ...step } = journeyAdmissionStep(input.templateKey, admission, world.fakes.timeZone ?? 'UTC');
          if (outcome.status === 'skipped') {
            await this.log(step.action, input.nodeId, step.detail);
            return outcome;
          }
          this.deferredUntil = outcome.retryAt;
          this.status = 'waiting';
          await this.log(step.action, input.nodeId, step.detail);
          // the production activity's answer to a deferred send: retried exactly when the wait ends
          throw ApplicationFailure.create({
            type: 'EmailSuppressWindow',
            message: outcome.reason,
            nextRetryDelay: outcome.retryAt.getTime() - now.getTime(),
            category: ApplicationFailureCategory.BENIGN,
          });
        }
        this.deferredUntil = undefined;
        this.status = 'active';
        try {
          return await this.deliver(input, now);
        } finally {
          if (admission.capClaim) world.releaseCapClaims([input.idempotencyKey]);
        }
      },
    };
    return { ...calls, ...createEnterJourneyWithActivities(calls) };
  }
}

let templates: Promise<typeof TemplateRegistry> | undefined;

/**
 * The template registry, imported on first use: it pulls in every React Email component (over a
 * second of CPU). Callers load it before their clock runs (the Temporal mode while the Java test
 * server boots), so that the send fake then answers from memory.
 */
export function loadTemplateRegistry(): Promise<typeof TemplateRegistry> {
  templates ??= import('@waymark/journeys/templates/registry');
  return templates;
}

/** The send path refuses an unknown template or data its props schema rejects; so do the fakes. */
async function templateProblem(templateKey: string, data: Record<string, unknown>): Promise<string | undefined> {
  const { emailTemplates } = await loadTemplateRegistry();
  const template = emailTemplates.find((candidate) => candidate.key === templateKey);
  if (template === undefined) return `unknown template '${templateKey}' (journeys/templates/registry.ts)`;
  const parsed = template.schema.safeParse(data);
  return parsed.success ? undefined : `template '${templateKey}' data: ${z.prettifyError(parsed.error)}`;
}
