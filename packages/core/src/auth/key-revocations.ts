import type { Redis } from 'ioredis';

const CHANNEL = 'waymark:api-key-revoked';

export interface KeyRevocations {
  /** Tells every instance (this one included) to drop the key hash from its cache. */
  publish(keyHash: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Other instances are allowed 60 seconds of grace after a revocation; publishing the hash
 * through Redis shortens that to the pub/sub latency. The local cache is evicted directly, so
 * revocation is immediate here even when Redis is down.
 */
export function createKeyRevocations(options: {
  publisher: Redis;
  subscriber: Redis;
  evict: (keyHash: string) => void;
  onError: (error: unknown) => void;
}): KeyRevocations {
  // ioredis re-subscribes by itself after a reconnect; the first subscription waits for 'ready'.
  const subscribe = () => options.subscriber.subscribe(CHANNEL).catch(options.onError);
  if (options.subscriber.status === 'ready') void subscribe();
  else options.subscriber.once('ready', () => void subscribe());
  options.subscriber.on('message', (channel: string, message: string) => {
    if (channel === CHANNEL) options.evict(message);
  });
  return {
    async publish(keyHash) {
      options.evict(keyHash);
      try {
        await options.publisher.publish(CHANNEL, keyHash);
      } catch (error) {
        options.onError(error);
      }
    },
    async close() {
      options.subscriber.disconnect();
    },
  };
}
