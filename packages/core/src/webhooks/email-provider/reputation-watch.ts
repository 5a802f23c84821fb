import { raiseBreakerAlert } from '../../alerts/breaker-alert';
import type { AlertEvaluationDeps } from '../../alerts/evaluate-alert-rule';
import { resumeReputationPausedBroadcasts } from '../../broadcasts/broadcast-reputation';
import { evaluateBreakers, type BreakerDeps, type BreakerTransition } from '../../deliverability/breaker';
import type { BackgroundJobs } from '../../jobs/background-jobs';
import type { ProcessOutcome } from './process-notification';

/**
 * Other events judge the breakers at most this often per process: the cooldown is hours long, but
 * a delivery can lift a group over REPUTATION_MIN_SENDS, which makes the complaints already
 * counted decide; two small queries every few seconds cost nothing against the event stream.
 */
const QUIET_EVALUATION_MS = 5_000;

/** What the breaker's judge needs: the breaker's own deps, the alerts' delivery, and the broadcasts' run (to resume the ones it paused). */
export type ReputationDeps = Omit<BreakerDeps, 'onTransition'> & { alerts: AlertEvaluationDeps; jobs: BackgroundJobs };

/** The breaker's deps with its changes raised as alerts. */
export function alertingBreaker(deps: ReputationDeps): BreakerDeps {
  return {
    db: deps.db,
    settings: deps.settings,
    ...(deps.logger === undefined ? {} : { logger: deps.logger }),
    ...(deps.states === undefined ? {} : { states: deps.states }),
    onTransition: (transition) => raiseBreakerAlert(deps.alerts, transition),
  };
}

/**
 * Judges every breaker at `now` with its changes alerted; a breaker back to `ok` (its cooldown
 * over) resumes the broadcasts the breaker paused, as a manual resume does. Held journey emails
 * need nothing: each looks again every REPUTATION_RECHECK_SECONDS.
 */
export async function judgeBreakers(deps: ReputationDeps, now: Date): Promise<BreakerTransition[]> {
  const transitions = await evaluateBreakers(alertingBreaker(deps), now);
  if (transitions.some((transition) => transition.to === 'ok')) await resumeReputationPausedBroadcasts({ db: deps.db, jobs: deps.jobs });
  return transitions;
}

export interface ReputationWatch {
  /** after each processed SES notification */
  noticed(outcome: ProcessOutcome, now: Date): Promise<void>;
}

/**
 * The breaker's judge on the webhook (docs/email.md, "Reputation breaker"): a bounce or a
 * complaint is judged at once, so a pause follows the complaint that calls for it; any other
 * event at most every few seconds. A tripped breaker's cooldown also ends without events (its own
 * mail held, nothing else sent): the worker judges every minute (temporal/activities/alerts.ts).
 * Each change raises the alert.
 */
export function createReputationWatch(deps: ReputationDeps): ReputationWatch {
  let lastQuiet = 0;
  return {
    async noticed(outcome, now) {
      if (!outcome.processed || outcome.kind === 'unparsed') return;
      const pressing = outcome.kind === 'bounced' || outcome.kind === 'complained';
      if (!pressing && now.getTime() - lastQuiet < QUIET_EVALUATION_MS) return;
      if (!pressing) lastQuiet = now.getTime();
      try {
        await judgeBreakers(deps, now);
      } catch (error) {
        // the notification is recorded; the next event judges again
        deps.logger?.warn({ err: error }, 'reputation breaker: evaluation failed');
      }
    },
  };
}
