import type { Config } from '@waymark/core/config/config';

type TemporalConfig = Pick<Config['temporal'], 'address' | 'tls' | 'apiKey'>;

/**
 * Connection options shared by every connection runtime/ opens (the api's, the worker's, the CLI's).
 * ORCHESTRATOR_CLIENT_TOKEN is a Temporal Cloud API key, which requires TLS.
 */
export function temporalConnectionOptions(config: TemporalConfig) {
  return {
    address: config.address,
    tls: config.tls ? {} : false,
    ...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
  } as const;
}
