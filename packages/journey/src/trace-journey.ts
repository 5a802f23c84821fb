import type { Properties } from './conditions';
import type { JourneyContext, ReceivedEvent, SendEmailOutcome } from './context';
import type { Journey } from './define-journey';
import { buildJourneyMap, describeConditions, type JourneyMap, type TracedStep } from './journey-map';
import { defaultNodeIds } from './node-ids';

/**
 * Draws a journey by running its code (docs/journeys.md, "Journey map"), not by reading its source:
 * `run` gets a context that records each step and returns at once, and is run again for every
 * answer the journey API can give it (a wait gets its event or times out; `history.hasEvent` says
 * yes or no; a send whose outcome is read is sent, skipped or failed), until every path has been
 * taken. So the map is exact for whatever the journey decides through `ctx`, however it is written.
 *
 * What running the code cannot enumerate is a decision on data: `if (ctx.trigger.properties.plan
 * === 'pro')`. Each path is therefore run once per sample of the trigger's properties (none set,
 * then each value the event catalog allows where it lists them), and a journey whose steps change
 * with them, that throws, that loops past the limits below or that awaits anything but `ctx` is
 * answered "cannot be traced", with the reason, rather than drawn wrong.
 */

/** more paths than this is a loop over outcomes (a wait in a `while`), not a journey anyone can read as a picture */
const MAX_PATHS = 256;
const MAX_STEPS = 100;
/** every ctx call resolves at once, so a run still pending after this awaits something else */
const SETTLE_MS = 2_000;

class Untraceable extends Error {}

interface PathRun {
  steps: TracedStep[];
  /** the number of answers at each decision taken, in order */
  arities: number[];
}

const SEND_OUTCOMES = ['sent', 'skipped', 'failed'] as const;

/** Runs `run` once, answering decision i with choices[i] (0 past the end). */
async function runPath(journey: Journey, choices: readonly number[], properties: Properties): Promise<PathRun> {
  const steps: TracedStep[] = [];
  const arities: number[] = [];
  const seen = new Map<string, number>();
  const decide = (arity: number): number => {
    const choice = choices[arities.length] ?? 0;
    arities.push(arity);
    return choice;
  };
  // the same step reached twice on one path is drawn twice (a second send of one template)
  const record = (step: Omit<TracedStep, 'id'> & { key: string }): TracedStep => {
    if (steps.length >= MAX_STEPS) throw new Untraceable(`a path has more than ${MAX_STEPS} steps (a loop?)`);
    const nth = (seen.get(step.key) ?? 0) + 1;
    seen.set(step.key, nth);
    const { key, ...rest } = step;
    const traced = { ...rest, id: nth === 1 ? key : `${key}#${nth}` };
    steps.push(traced);
    return traced;
  };
  const occurredAt = new Date(0).toISOString();
  const ctx: JourneyContext = {
    journey: { id: journey.id, name: journey.name },
    stateId: 'traced',
    user: { id: 'traced', email: 'traced@example.com' },
    trigger: { event: journey.trigger.event, eventId: 'traced', occurredAt, properties },
    async sendEmail(templateKey, options = {}) {
      const nodeId = options.node ?? defaultNodeIds.sendEmail(templateKey);
      record({ key: nodeId, kind: 'email', label: `Send ${templateKey}`, nodeId, templateKey, outcome: null });
      // the outcome is a decision only if the journey reads it: most never do
      let outcome: SendEmailOutcome | undefined;
      const read = (): SendEmailOutcome => {
        if (outcome !== undefined) return outcome;
        const status = SEND_OUTCOMES[decide(SEND_OUTCOMES.length)]!;
        record({ key: `sent?${nodeId}`, kind: 'branch', label: `Was ${templateKey} sent?`, nodeId: null, templateKey: null, outcome: status });
        outcome =
          status === 'sent' ? { status, emailSendId: 'traced' } : { status, reason: 'traced', ...(status === 'failed' ? { emailSendId: 'traced' } : {}) };
        return outcome;
      };
      return {
        get status() {
          return read().status;
        },
        get emailSendId() {
          return read().emailSendId;
        },
        get reason() {
          return read().reason;
        },
      };
    },
    async sleep(duration, options = {}) {
      const nodeId = options.node ?? defaultNodeIds.sleep(duration);
      record({ key: nodeId, kind: 'sleep', label: `Sleep ${String(duration)}`, nodeId, templateKey: null, outcome: null });
    },
    async sleepUntilLocal(time, options = {}) {
      const nodeId = options.node ?? defaultNodeIds.sleepUntilLocal(time);
      const days = options.weekdays === undefined ? '' : ` on ${options.weekdays.join(', ')}`;
      record({ key: nodeId, kind: 'sleep', label: `Sleep until ${time} local time${days}`, nodeId, templateKey: null, outcome: null });
    },
    async waitForEvent(name, options) {
      const nodeId = options.node ?? defaultNodeIds.waitForEvent(name);
      const label = `Wait up to ${String(options.timeout)} for ${name}${describeConditions(options.where)}`;
      const step = record({ key: nodeId, kind: 'wait', label, nodeId, templateKey: null, outcome: null });
      const received = decide(2) === 0;
      step.outcome = received ? `got ${name}` : `after ${String(options.timeout)}`;
      const event: ReceivedEvent = { eventId: 'traced', name, occurredAt, properties: {} };
      return received ? event : undefined;
    },
    history: {
      async hasEvent(name, options = {}) {
        const since = options.since === 'entry' ? ' since entry' : options.since === undefined ? '' : ` since ${options.since.toISOString()}`;
        const within = options.within === undefined ? '' : ` within ${String(options.within)}`;
        const question = `Has ${name}${describeConditions(options.where)}${since}${within}?`;
        const step = record({ key: `has?${question}`, kind: 'branch', label: question, nodeId: null, templateKey: null, outcome: null });
        const yes = decide(2) === 0;
        step.outcome = yes ? 'yes' : 'no';
        return yes;
      },
    },
    async node(id) {
      record({ key: id, kind: 'step', label: `Step ${id}`, nodeId: id, templateKey: null, outcome: null });
    },
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const pending = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Untraceable('its run awaits something other than ctx (it did not finish when every step returned at once)')),
      SETTLE_MS,
    );
  });
  try {
    await Promise.race([journey.run(ctx), pending]);
  } catch (error) {
    if (error instanceof Untraceable) throw error;
    throw new Untraceable(`its run threw on a path: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearTimeout(timer);
  }
  return { steps, arities };
}

/** Every path of the run with these trigger properties, depth first over the decisions' answers. */
async function allPaths(journey: Journey, properties: Properties): Promise<TracedStep[][]> {
  const paths: TracedStep[][] = [];
  const todo: number[][] = [[]];
  while (todo.length > 0) {
    if (paths.length >= MAX_PATHS) throw new Untraceable(`it has more than ${MAX_PATHS} paths (a wait or a check in a loop?)`);
    const prefix = todo.pop()!;
    const { steps, arities } = await runPath(journey, prefix, properties);
    paths.push(steps);
    // the other answers of each decision this run took first (the prefix's were queued already)
    for (let at = arities.length - 1; at >= prefix.length; at--) {
      for (let answer = arities[at]! - 1; answer >= 1; answer--) todo.push([...prefix, ...new Array<number>(at - prefix.length).fill(0), answer]);
    }
  }
  return paths;
}

const signature = (paths: readonly TracedStep[][]) =>
  paths
    .map((path) => path.map((step) => `${step.id}>${step.outcome ?? ''}`).join('|'))
    .sort()
    .join('\n');

/**
 * The journey's map, or why it cannot be drawn. `propertySamples` are the trigger's properties to
 * try besides none at all (the caller builds them from the event catalog: `catalogPropertySamples`).
 */
export async function traceJourney(journey: Journey, propertySamples: readonly Properties[] = []): Promise<JourneyMap> {
  try {
    const paths = await allPaths(journey, {});
    for (const sample of propertySamples) {
      if (signature(await allPaths(journey, sample)) !== signature(paths))
        throw new Untraceable(`its steps depend on the trigger's properties (${JSON.stringify(sample)} takes other steps), which a map cannot enumerate`);
    }
    return buildJourneyMap(journey, paths);
  } catch (error) {
    if (error instanceof Untraceable) return { traced: false, reason: `${journey.id} cannot be traced: ${error.message}` };
    throw error;
  }
}

/**
 * Samples of an event's properties from its JSON Schema (the catalog's `jsonSchema`): one per value
 * an `enum` lists and both booleans, each with that one property set, so a branch on one of them
 * shows as a difference between samples.
 */
export function catalogPropertySamples(schema: Record<string, unknown> | undefined): Properties[] {
  const properties = (schema?.properties ?? {}) as Record<string, { enum?: unknown[]; type?: unknown }>;
  return Object.entries(properties).flatMap(([name, property]) => {
    const values = Array.isArray(property.enum) ? property.enum : property.type === 'boolean' ? [true, false] : [];
    return values.map((value) => ({ [name]: value }));
  });
}
