import { randomUUID } from 'node:crypto';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { DEFAULT_EMAIL_CATEGORY } from '@waymark/email/email-template';
import { primitiveProperties, type PrimitiveProperties } from '@waymark/core/journeys/orchestrator';
import { programHoldout, programHoldoutDetail } from '@waymark/core/delivery/program-holdout';
import { categories } from '@waymark/journeys/categories';
import type * as TemplateRegistry from '@waymark/journeys/templates/registry';
import { createEnterJourneyWithActivities } from '../activities/enter-journey-with';
import type { EnterJourneyWithActivities } from '../entry-with-first-step';
import type { JourneyRunCalls } from '../journey-calls';
import { z } from 'zod';
import {
  capVerdict,
  describeCap,
  evaluateConditions,
  formatLocal,
  NO_DELIVERY_POLICY,
  type DeliveryPolicy,
  type Properties,
  durationMs,
  type Duration,
} from '@waymark/journey';

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

  constructor(
    readonly fakes: JourneyFakes,
    readonly now: () => Promise<Date>,
    startedAt: Date,
    /** the delivery policy whose frequency caps the send fake applies (journeys/delivery-policy.ts in the kit) */
    readonly policy: DeliveryPolicy = NO_DELIVERY_POLICY,
  ) {
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

  /** The preference gate: the reason a send in `category` is refused, if any. */
  blocked(category: string): 'suppressed' | 'unsubscribed_all' | 'category_unsubscribed' | undefined {
    if (this.fakes.suppressed === true) return 'suppressed';
    if (this.fakes.unsubscribed === 'all') return 'unsubscribed_all';
    if (this.fakes.unsubscribed?.includes(category) === true) return 'category_unsubscribed';
    return undefined;
  }
}

const requiredCategories = new Set(categories.filter((category) => category.required === true).map((category) => category.key));
const isRequiredCategory = { required: (key: string) => requiredCategories.has(key) };

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

  /** The activities of this run, behaving as the Postgres-backed ones do. */
  activities(): JourneyRunActivities {
    const world = this.world;
    const calls: JourneyRunCalls = {
      enterJourney: async (input) => {
        if (this.stateId !== undefined) return { entered: true, stateId: this.stateId, userEmail: input.userEmail };
        const blocked = world.blocked(input.category ?? DEFAULT_EMAIL_CATEGORY);
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
        // as core's deliverJourneyEmail: a held-out person (of the journey, or of the policy's
        // program holdout, by core's one rule) gets nothing but a required category's emails
        const journeyHeld = input.holdout === true && !requiredCategories.has(input.category);
        const programArm = journeyHeld ? undefined : programHoldout(world.policy, isRequiredCategory, input.category, input.userId);
        if (journeyHeld || programArm !== undefined) {
          await this.log('email_skipped', input.nodeId, {
            templateKey: input.templateKey,
            reason: 'holdout',
            ...(programArm === undefined ? {} : programHoldoutDetail(programArm)),
          });
          return { status: 'skipped', reason: 'holdout' };
        }
        const now = await world.now();
        const cap = capVerdict(world.policy, input.category, now.getTime(), world.sends);
        if (cap.capped) {
          // as core's applyJourneyFrequencyCap: asked before the send path, logged with the same detail
          const detail = { templateKey: input.templateKey, reason: 'frequency_cap', cap: describeCap(cap.cap), until: new Date(cap.until).toISOString() };
          if (cap.onCap === 'skip') {
            await this.log('email_skipped', input.nodeId, detail);
            return { status: 'skipped', reason: 'frequency_cap' };
          }
          const timeZone = world.fakes.timeZone ?? 'UTC';
          this.deferredUntil = new Date(cap.until);
          this.status = 'waiting';
          await this.log('held', input.nodeId, { ...detail, localUntil: formatLocal(cap.until, timeZone), timeZone });
          throw ApplicationFailure.create({
            type: 'EmailSuppressWindow',
            message: 'frequency cap',
            nextRetryDelay: cap.until - now.getTime(),
            category: ApplicationFailureCategory.BENIGN,
          });
        }
        const blocked = world.blocked(input.category);
        if (blocked !== undefined) {
          await this.log('email_skipped', input.nodeId, { templateKey: input.templateKey, reason: blocked });
          return { status: 'skipped', reason: blocked };
        }
        const windowEnd =
          input.suppressHours === undefined || world.lastEmailAt === undefined ? 0 : world.lastEmailAt.getTime() + input.suppressHours * 3_600_000;
        if (windowEnd > now.getTime()) {
          this.deferredUntil = new Date(windowEnd);
          this.status = 'waiting';
          await this.log('waiting', input.nodeId, { templateKey: input.templateKey, reason: 'suppress_window', until: this.deferredUntil.toISOString() });
          // the production activity's answer to a send inside the window: retried exactly when it ends
          throw ApplicationFailure.create({
            type: 'EmailSuppressWindow',
            message: 'journey suppress window',
            nextRetryDelay: windowEnd - now.getTime(),
            category: ApplicationFailureCategory.BENIGN,
          });
        }
        this.deferredUntil = undefined;
        this.status = 'active';
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
