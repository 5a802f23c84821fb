import type { Config } from '@waymark/core/config/config';

type TemporalConfig = Pick<Config['temporal'], 'address' | 'tls' | 'apiKey'>;

/**
 * Connection options shared by the api's client and the worker's native connection.
 * ORCHESTRATOR_CLIENT_TOKEN is a Temporal Cloud API key, which requires TLS.
 */
export function temporalConnectionOptions(config: TemporalConfig) {
  return {
    address: config.address,
    tls: config.tls ? {} : false,
    ...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
  } as const;
}
