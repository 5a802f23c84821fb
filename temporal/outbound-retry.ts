import type { Config } from '@waymark/core/config/config';

/**
 * The retry schedule of outbound webhook deliveries, passed to each delivery workflow as an
 * argument (workflow code cannot read configuration): Temporal retries the delivery activity
 * from `initialIntervalMs`, doubling up to `maximumIntervalMs`, until `windowMs` has passed.
 */
export interface WebhookRetryPolicy {
  initialIntervalMs: number;
  maximumIntervalMs: number;
  windowMs: number;
}

export function webhookRetryPolicy(config: Config['webhooks']): WebhookRetryPolicy {
  return { initialIntervalMs: config.retryInitialIntervalMs, maximumIntervalMs: config.retryMaxIntervalMs, windowMs: config.retryWindowMs };
}
