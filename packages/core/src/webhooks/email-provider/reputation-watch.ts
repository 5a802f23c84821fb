import { raiseBreakerAlert } from '../../alerts/breaker-alert';
import type { AlertEvaluationDeps } from '../../alerts/evaluate-alert-rule';
import { evaluateBreakers, type BreakerDeps } from '../../deliverability/breaker';
import type { ProcessOutcome } from './process-notification';

/**
 * Other events judge the breakers at most this often per process: the cooldown is hours long, but
 * a delivery can lift a group over REPUTATION_MIN_SENDS, which makes the complaints already
 * counted decide; two small queries every few seconds cost nothing against the event stream.
 */
const QUIET_EVALUATION_MS = 5_000;

/** What the breaker's judge needs: the breaker's own deps and the alerts' delivery. */
export type ReputationDeps = Omit<BreakerDeps, 'onTransition'> & { alerts: AlertEvaluationDeps };

/** The breaker's deps with its changes raised as alerts. */
export function alertingBreaker(deps: ReputationDeps): BreakerDeps {
  return {
    db: deps.db,
    settings: deps.settings,
    ...(deps.logger === undefined ? {} : { logger: deps.logger }),
    onTransition: (transition) => raiseBreakerAlert(deps.alerts, transition),
  };
}

export interface ReputationWatch {
  /** after each processed SES notification */
  noticed(outcome: ProcessOutcome, now: Date): Promise<void>;
}

/**
 * The breaker's judge on the webhook (docs/email.md, "Reputation breaker"): a bounce or a
 * complaint is judged at once, so a pause follows the complaint that calls for it; any other
 * event at most every few seconds, which is what runs a tripped breaker's cooldown while its own mail
 * is held. Each change raises the alert.
 */
export function createReputationWatch(deps: ReputationDeps): ReputationWatch {
  const breaker = alertingBreaker(deps);
  let lastQuiet = 0;
  return {
    async noticed(outcome, now) {
      if (!outcome.processed || outcome.kind === 'unparsed') return;
      const pressing = outcome.kind === 'bounced' || outcome.kind === 'complained';
      if (!pressing && now.getTime() - lastQuiet < QUIET_EVALUATION_MS) return;
      if (!pressing) lastQuiet = now.getTime();
      try {
        await evaluateBreakers(breaker, now);
      } catch (error) {
        // the notification is recorded; the next event judges again
        deps.logger?.warn({ err: error }, 'reputation breaker: evaluation failed');
      }
    },
  };
}
