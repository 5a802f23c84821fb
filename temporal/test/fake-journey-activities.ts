import { randomUUID } from 'node:crypto';
import type { Activities } from '../activities/index';

type JourneyActivityNames = 'enterJourney' | 'recordJourneyStep' | 'finishJourneyRun' | 'findJourneyEvents' | 'hasJourneyEvent' | 'sendJourneyEmail';
export type FakeJourneyActivities = Pick<Activities, JourneyActivityNames>;

export interface FakeOptions {
  /** answer of ctx.history.hasEvent */
  hasEvent?: boolean;
  /** rejects entry with this reason */
  rejectEntry?: 'entry_limit' | 'already_enrolled' | 'unsubscribed_all';
  /** makes sendJourneyEmail throw this error */
  sendError?: Error;
}

/**
 * Fakes of the journey activities, typed from the real factory (house rule 9), recording what
 * the run asked for: the states, logs and sends it would have written.
 */
export function createFakeJourneyActivities(options: FakeOptions = {}) {
  const steps: { toNodeId: string; action: string; status?: string }[] = [];
  const sends: { templateKey: string; nodeId: string; idempotencyKey: string }[] = [];
  const finishes: { status: string; errorMessage?: string }[] = [];
  const activities: FakeJourneyActivities = {
    async enterJourney() {
      if (options.rejectEntry !== undefined) return { entered: false, reason: options.rejectEntry };
      return { entered: true, stateId: randomUUID(), userEmail: 'ada@example.com' };
    },
    async recordJourneyStep(input) {
      steps.push({ toNodeId: input.toNodeId, action: input.action, ...(input.status === undefined ? {} : { status: input.status }) });
      return true;
    },
    async finishJourneyRun(input) {
      finishes.push({ status: input.status, ...(input.errorMessage === undefined ? {} : { errorMessage: input.errorMessage }) });
    },
    async findJourneyEvents() {
      return [];
    },
    async hasJourneyEvent() {
      return options.hasEvent ?? false;
    },
    async sendJourneyEmail(input) {
      if (options.sendError !== undefined) throw options.sendError;
      sends.push({ templateKey: input.templateKey, nodeId: input.nodeId, idempotencyKey: input.idempotencyKey });
      return { status: 'sent', emailSendId: randomUUID() };
    },
  };
  return { activities, steps, sends, finishes };
}
