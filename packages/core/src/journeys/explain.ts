import { evaluateCondition, holdoutArm, HOLDOUT_BUCKETS, type Journey } from '@waymark/journey';
import type { Db } from '../db/database';
import type { JsonObject } from '../db/schema';
import { getContact } from '../contacts/contact';
import { listAddressSuppressions, type AddressSuppressionReason } from '../contacts/address-suppressions';
import { programHoldoutPhrase } from '../delivery/program-holdout';
import { sendCategory } from '../delivery/send-category';
import { isRequired } from '../preferences/send-gate';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import { effectiveEnabled, loadOverrides } from './effective-enabled';
import type { JourneyOrchestrator } from './orchestrator';
import type { JourneyRegistry } from './registry';

export interface ExplainDeps {
  db: Db;
  journeys: JourneyRegistry;
  orchestrator: Pick<JourneyOrchestrator, 'runProgress'>;
  /** the deployment's categories: a kept unsubscribe refuses no entry into a journey of a required one */
  categories: Pick<PreferenceCategories, 'find'>;
}

/** One step of an enrollment: what happened at a node, in words (docs/journeys.md#explain). */
export interface ExplainedStep {
  at: Date;
  node: string;
  action: string;
  /** `sent`, `skipped: …`, `waiting until …`, `exited by … at …`, `failed → DLQ …`, … */
  outcome: string;
  templateKey?: string;
  /** the language the step's email was rendered in (docs/email.md, "Languages") */
  locale?: string;
}

export interface ExplainedEnrollment {
  stateId: string;
  status: string;
  enteredAt: Date;
  triggerEventId: string | null;
  steps: ExplainedStep[];
  /** for a live run: where Temporal says it is now */
  now?: string;
  /** for a journey with a holdout: "held out of first-project (bucket 134 of 1000 is under 200)" */
  arm?: string;
  /** the goal met: "converted on day 3 through subscription.started" */
  converted?: string;
}

export interface ExplainedTrigger {
  eventId: string;
  at: Date;
  /** `entered` or why this trigger made no entry */
  outcome: string;
  stateId?: string;
}

export interface Explanation {
  contact: { id: string; externalId: string | null; email: string | null };
  journey: { id: string; name: string; triggerEvent: string; enabled: boolean };
  /** why the journey starts nothing at all right now, if so */
  unavailable?: 'journey disabled' | 'journey not in ENABLED_JOURNEYS';
  triggers: ExplainedTrigger[];
  enrollments: ExplainedEnrollment[];
  /** when there is no enrollment: the reason */
  notEnrolled?: string;
  /** with `templateKey`: that template's fate for this person */
  template?: { key: string; outcome: string };
}

/**
 * The story of one person in one journey, from the events table, journey states and logs, dead
 * letters, preferences and the live run's progress in Temporal.
 */
export async function explainJourney(deps: ExplainDeps, input: { contactId: string; journeyId: string; templateKey?: string }): Promise<Explanation> {
  const journey = deps.journeys.get(input.journeyId);
  const contact = await getContact(deps.db, input.contactId);
  const userId = contact.externalId ?? contact.email ?? contact.id;
  const overrides = await loadOverrides(deps.db, [journey.id]);
  const enabled = effectiveEnabled(deps.journeys, journey.id, overrides.get(journey.id)?.enabled);
  const unavailable = enabled
    ? undefined
    : overrides.get(journey.id) === undefined && journey.enabled && !deps.journeys.codeEnabled(journey.id)
      ? ('journey not in ENABLED_JOURNEYS' as const)
      : ('journey disabled' as const);

  const [events, states, entry, preferences, kept] = await Promise.all([
    deps.db
      .selectFrom('events')
      .select(['id', 'properties', 'occurredAt'])
      .where('userId', '=', userId)
      .where('event', '=', journey.trigger.event)
      .orderBy('occurredAt')
      .execute(),
    deps.db
      .selectFrom('journeyStates')
      .select(['id', 'status', 'context', 'createdAt', 'workflowId', 'holdout', 'convertedAt'])
      .where('userId', '=', userId)
      .where('journeyId', '=', journey.id)
      .orderBy('createdAt')
      .execute(),
    deps.db.selectFrom('journeyEntries').select(['firstEnteredAt']).where('userId', '=', userId).where('journeyId', '=', journey.id).executeTakeFirst(),
    contact.email === null
      ? Promise.resolve([])
      : deps.db
          .selectFrom('emailPreferences')
          .selectAll()
          .where(({ fn, eb }) => eb(fn('lower', ['email']), '=', contact.email!.toLowerCase()))
          .execute(),
    contact.email === null ? Promise.resolve([]) : listAddressSuppressions(deps.db, contact.email),
  ]);

  const stateIds = states.map((state) => state.id);
  const [logs, deadLetters, sendLocales] = await Promise.all([
    stateIds.length === 0
      ? Promise.resolve([])
      : deps.db.selectFrom('journeyLogs').selectAll().where('journeyStateId', 'in', stateIds).orderBy('createdAt').orderBy('id').execute(),
    stateIds.length === 0
      ? Promise.resolve([])
      : deps.db
          .selectFrom('dlqEntries')
          .select(['id', 'payload'])
          .where(({ eb, ref }) => eb(eb.fn('jsonb_extract_path_text', [ref('payload'), eb.val('journeyStateId')]), 'in', stateIds))
          .execute(),
    stateIds.length === 0
      ? Promise.resolve(new Map<string, string>())
      : deps.db
          .selectFrom('emailSends')
          .select(['id', 'locale'])
          .where('journeyStateId', 'in', stateIds)
          .where('locale', 'is not', null)
          .execute()
          .then((rows) => new Map(rows.map((row) => [row.id, row.locale!]))),
  ]);

  const offCategories = preferences.flatMap((row) =>
    Object.entries((row.categories ?? {}) as Record<string, boolean>)
      .filter(([, on]) => on === false)
      .map(([category]) => category),
  );
  // the reason stored when the address was suppressed, so an imported bounce (one bounce, under
  // BOUNCE_THRESHOLD) reads as bounce-suppressed and a manual suppression of a bouncing address does not
  const bounced = preferences.some((row) => row.suppressed && row.suppressionReason === 'bounced');
  // what an earlier, deleted contact of this address said, which the send gate still honours
  const keptPhrase = (reasons: readonly AddressSuppressionReason[], before?: Date): string | undefined => {
    const found = kept.find((suppression) => reasons.includes(suppression.reason) && (before === undefined || suppression.suppressedAt <= before));
    return found === undefined
      ? undefined
      : `${KEPT_WORDS[found.reason]} on ${found.suppressedAt.toISOString()}, kept after a contact with this address was deleted`;
  };
  const keptSuppression = keptPhrase(['bounced', 'complained', 'manual']);
  const entryCategoryRequired = isRequired(sendCategory(deps.categories, journey.category));
  const keptUnsubscribe = keptPhrase(['unsubscribed']);
  const skipPhrase = (reason: string): string => {
    switch (reason) {
      case 'suppressed':
        if (!preferences.some((row) => row.suppressed) && keptSuppression !== undefined) return `suppressed: ${keptSuppression}`;
        return bounced ? 'bounce-suppressed' : 'suppressed';
      case 'unsubscribed_all':
        if (!preferences.some((row) => row.unsubscribedAll) && keptUnsubscribe !== undefined) return `unsubscribed from all emails: ${keptUnsubscribe}`;
        return 'unsubscribed from all emails';
      case 'category_unsubscribed':
        return `unsubscribed from ${offCategories.join(', ') || 'the category'}`;
      case 'holdout':
        return armPhrase(journey, userId, true);
      case 'duplicate':
      case 'state_not_active':
        return reason === 'duplicate' ? 'duplicate' : 'the run had already ended';
      default:
        return reason;
    }
  };

  const enrollments: ExplainedEnrollment[] = [];
  for (const state of states) {
    const steps = logs
      .filter((log) => log.journeyStateId === state.id)
      .map((log): ExplainedStep => {
        const detail = (log.detail ?? {}) as JsonObject;
        const templateKey = typeof detail.templateKey === 'string' ? detail.templateKey : undefined;
        const text = (key: string) => (typeof detail[key] === 'string' ? (detail[key] as string) : undefined);
        let outcome: string = log.action;
        if (log.action === 'email_sent') outcome = 'sent';
        else if (log.action === 'email_skipped' && text('reason') === 'frequency_cap') outcome = `skipped: frequency cap ${text('cap') ?? ''} reached`;
        else if (log.action === 'email_skipped' && text('holdout') === 'program')
          outcome = `skipped: ${programHoldoutPhrase({ bucket: Number(detail.bucket), threshold: Number(detail.threshold) })}`;
        else if (log.action === 'email_skipped') outcome = `skipped: ${skipPhrase(text('reason') ?? 'unknown')}`;
        else if (log.action === 'waiting' && text('reason') === 'suppress_window') outcome = `skipped: inside suppress.hours until ${text('until')}`;
        else if (log.action === 'held' && text('reason') === 'reputation')
          outcome = `held by the reputation breaker: marketing mail to ${text('provider') ?? 'this provider'} is paused (looking again at ${text('until')})`;
        else if (log.action === 'held' && text('reason') === 'warmup')
          outcome = `held by the warm-up ramp: today's marketing allowance is spent (sending from ${text('until')})`;
        else if (log.action === 'held' && text('reason') === 'quiet_hours') outcome = `held by quiet hours until ${recipientClock(detail)}`;
        else if (log.action === 'held' && text('reason') === 'frequency_cap')
          outcome = `held by frequency cap ${text('cap') ?? ''} until ${recipientClock(detail)}`;
        else if (log.action === 'waiting' && text('localUntil') !== undefined) outcome = `waiting until ${recipientClock(detail)}`;
        else if (log.action === 'waiting')
          outcome = text('until') !== undefined ? `waiting until ${text('until')}` : `waiting for ${text('event') ?? 'an event'} (timeout ${text('timeout')})`;
        else if (log.action === 'email_failed') {
          const letter = deadLetters.find(
            (entry) => (entry.payload as JsonObject).journeyStateId === state.id && (entry.payload as JsonObject).templateKey === templateKey,
          );
          outcome = letter === undefined ? `failed: ${text('reason') ?? 'unknown'}` : `failed → DLQ ${letter.id}`;
        } else if (log.action === 'exited' && text('reason') === 'goal') outcome = `exited on reaching the goal (${text('event') ?? 'its event'})`;
        else if (log.action === 'exited')
          outcome = text('event') !== undefined ? `exited by ${text('event')} at ${log.createdAt.toISOString()}` : 'exited (cancelled by an admin)';
        else if (log.action === 'converted') outcome = `converted through ${text('event') ?? 'the goal event'}`;
        const locale = sendLocales.get(text('emailSendId') ?? '');
        return {
          at: log.createdAt,
          node: log.toNodeId,
          action: log.action,
          outcome,
          ...(templateKey === undefined ? {} : { templateKey }),
          ...(locale === undefined ? {} : { locale }),
        };
      });
    const live = state.status === 'active' || state.status === 'waiting';
    const progress = live && deps.orchestrator.runProgress !== undefined ? await deps.orchestrator.runProgress(state.workflowId) : undefined;
    const now =
      progress?.phase === 'waiting'
        ? progress.waitingFor === undefined
          ? `waiting until ${progress.until}`
          : `waiting for ${progress.waitingFor} until ${progress.until}`
        : undefined;
    const trigger = ((state.context ?? {}) as { trigger?: { eventId?: string } }).trigger;
    const conversion = steps.find((step) => step.action === 'converted');
    enrollments.push({
      stateId: state.id,
      status: state.status,
      enteredAt: state.createdAt,
      triggerEventId: trigger?.eventId ?? null,
      steps,
      ...(now === undefined ? {} : { now }),
      ...(state.holdout === null || journey.holdout === undefined ? {} : { arm: armPhrase(journey, userId, state.holdout) }),
      ...(state.convertedAt === null
        ? {}
        : {
            converted: `converted on day ${conversionDay(state.createdAt, state.convertedAt)} through ${conversion?.outcome.replace('converted through ', '') ?? journey.goal?.event ?? 'the goal event'}`,
          }),
    });
  }

  const triggers = events.map((event): ExplainedTrigger => {
    const enrollment = enrollments.find((candidate) => candidate.triggerEventId === event.id);
    if (enrollment !== undefined) return { eventId: event.id, at: event.occurredAt, outcome: 'entered', stateId: enrollment.stateId };
    const properties = (event.properties ?? {}) as Record<string, unknown>;
    const failed = (journey.trigger.where ?? []).find((condition) => !evaluateCondition(condition, properties));
    if (failed !== undefined) {
      return {
        eventId: event.id,
        at: event.occurredAt,
        outcome: `trigger.where failed: ${failed.property} = ${String(properties[failed.property] ?? 'missing')}`,
      };
    }
    if (journey.entryLimit === 'once' && entry !== undefined && entry.firstEnteredAt < event.occurredAt) {
      return { eventId: event.id, at: event.occurredAt, outcome: `entry limit once already used on ${entry.firstEnteredAt.toISOString()}` };
    }
    // a kept entry is the reason only if the entry gate would have refused on it: kept before the
    // trigger, and for an unsubscribe, a journey whose category a person may leave
    const suppressedThen = keptPhrase(['bounced', 'complained', 'manual'], event.occurredAt);
    const unsubscribedThen = entryCategoryRequired ? undefined : keptPhrase(['unsubscribed'], event.occurredAt);
    const refused =
      suppressedThen !== undefined
        ? `not entered: the address is suppressed (${suppressedThen})`
        : unsubscribedThen === undefined
          ? undefined
          : `not entered: the address is unsubscribed (${unsubscribedThen})`;
    return { eventId: event.id, at: event.occurredAt, outcome: unavailable ?? refused ?? 'not entered (already enrolled, or unsubscribed at the time)' };
  });

  const explanation: Explanation = {
    contact: { id: contact.id, externalId: contact.externalId, email: contact.email },
    journey: { id: journey.id, name: journey.name, triggerEvent: journey.trigger.event, enabled },
    ...(unavailable === undefined ? {} : { unavailable }),
    triggers,
    enrollments,
  };
  if (enrollments.length === 0) {
    explanation.notEnrolled =
      unavailable ?? (triggers.length === 0 ? `trigger event never received (${journey.trigger.event})` : triggers[triggers.length - 1]!.outcome);
  }
  if (input.templateKey !== undefined) explanation.template = { key: input.templateKey, outcome: templateOutcome(input.templateKey, explanation) };
  return explanation;
}

/** "held out of first-project (bucket 134 of 1000 is under 200)", from the journey's hash of the person */
function armPhrase(journey: Journey, userId: string, heldOut: boolean): string {
  const arm = holdoutArm(journey, userId);
  if (arm === undefined) return heldOut ? `held out of ${journey.id}` : `in treatment of ${journey.id}`;
  const why = `bucket ${arm.bucket} of ${HOLDOUT_BUCKETS} is ${arm.holdout ? '' : 'not '}under ${arm.threshold}`;
  return `${heldOut ? 'held out of' : 'in treatment of'} ${journey.id} (${why})`;
}

/** Day 1 is the first 24 hours after entry. */
function conversionDay(enteredAt: Date, convertedAt: Date): number {
  return Math.floor((convertedAt.getTime() - enteredAt.getTime()) / 86_400_000) + 1;
}

const KEPT_WORDS: Record<AddressSuppressionReason, string> = {
  bounced: 'it bounced',
  complained: 'it complained of spam',
  manual: 'an operator suppressed it',
  unsubscribed: 'it unsubscribed from all emails',
};

/** The latest word on one template: its send step, or why no enrollment reached it. */
function templateOutcome(templateKey: string, explanation: Explanation): string {
  for (const enrollment of [...explanation.enrollments].reverse()) {
    const step = [...enrollment.steps].reverse().find((candidate) => candidate.templateKey === templateKey);
    if (step !== undefined) return `${step.outcome} (${step.at.toISOString()})`;
  }
  if (explanation.notEnrolled !== undefined) return `not sent: ${explanation.notEnrolled}`;
  const last = explanation.enrollments.at(-1)!;
  if (last.now !== undefined) return `not sent yet: ${last.now}`;
  const end = last.steps.at(-1);
  return `not sent: the run did not reach it (${end === undefined ? last.status : end.outcome})`;
}

/** '08:00 Europe/Paris (2026-12-01T08:00+01:00)': a hold's end as the recipient's clock shows it. */
function recipientClock(detail: JsonObject): string {
  const local = String(detail.localUntil);
  return `${local.slice(11, 16)} ${String(detail.timeZone)} (${local})`;
}
