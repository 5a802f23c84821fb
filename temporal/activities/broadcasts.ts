import { Context } from '@temporalio/activity';
import { runBroadcastStep, type BroadcastStep } from '@waymark/core/broadcasts/broadcast-run';
import type { Config } from '@waymark/core/config/config';
import type { EmailDeps } from '@waymark/core/emails/email-deps';

export interface BroadcastActivityDeps {
  /** the one send path: every broadcast email is an ordinary tracked send */
  email: EmailDeps;
  config: Pick<Config, 'defaultTimeZone'>;
}

/**
 * A broadcast's one activity: the next step of its run (core/broadcasts/broadcast-run.ts), at the
 * workflow's `now` so durable timers and time skipping decide what is due. It heartbeats per send:
 * a worker killed mid-chunk is noticed and the step runs again, sending nothing twice.
 */
export function createBroadcastActivities(deps: BroadcastActivityDeps) {
  return {
    async broadcastStep(input: { broadcastId: string; now: number }): Promise<BroadcastStep> {
      const context = Context.current();
      return runBroadcastStep(
        { email: deps.email, defaultTimeZone: deps.config.defaultTimeZone, heartbeat: () => context.heartbeat() },
        input.broadcastId,
        new Date(input.now),
      );
    },
  };
}

export type BroadcastActivities = ReturnType<typeof createBroadcastActivities>;
