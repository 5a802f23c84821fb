import { PostHog } from 'posthog-node';

/** Where tracking events are mirrored for product analytics (docs/email.md, Tracking). */
export interface AnalyticsDestination {
  /** Queues one event; never blocks and never throws. */
  capture(event: { distinctId: string; event: string; properties: Record<string, unknown> }): void;
  shutdown(): Promise<void>;
}

const noop: AnalyticsDestination = {
  capture: () => undefined,
  shutdown: async () => undefined,
};

/**
 * PostHog through posthog-node when ANALYTICS_API_KEY and ANALYTICS_HOST are set, otherwise a
 * no-op. posthog-node batches in memory and flushes in the background (flushAt/flushInterval),
 * so a tracking request never waits for the analytics host.
 */
export function createAnalyticsDestination(
  config: { apiKey?: string | undefined; host?: string | undefined },
  options: { onError?: (error: unknown) => void } = {},
): AnalyticsDestination {
  if (config.apiKey === undefined || config.host === undefined) return noop;
  const client = new PostHog(config.apiKey, { host: config.host, flushAt: 50, flushInterval: 5_000 });
  if (options.onError !== undefined) client.on('error', options.onError);
  return {
    capture(event) {
      try {
        client.capture({ distinctId: event.distinctId, event: event.event, properties: event.properties });
      } catch (error) {
        options.onError?.(error);
      }
    },
    async shutdown() {
      await client.shutdown(2_000);
    },
  };
}
