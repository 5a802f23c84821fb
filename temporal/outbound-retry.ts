/** The retry schedule that runs of outboundEventWorkflow started before the delivery queue carry in their input. */
export interface WebhookRetryPolicy {
  initialIntervalMs: number;
  maximumIntervalMs: number;
  windowMs: number;
}
