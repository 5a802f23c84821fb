import { createSesSendQuotaReader } from '@waymark/email/ses-send-quota';
import { createRedis } from '../cache/redis';
import type { Config } from '../config/config';
import type { AppLogger } from '../logging/logger';
import { createSendRateGovernor, type SendRateGovernor } from './send-rate-governor';

/** The governor of a sending process (api, worker): CACHE_URL, SES_MAX_SEND_RATE or SES's quota, SEND_RATE_WORKER_SHARE. */
export function createConfiguredSendRateGovernor(config: Config, logger: Pick<AppLogger, 'info' | 'warn' | 'debug'>): SendRateGovernor {
  return createSendRateGovernor({
    redis: createRedis(config.cacheUrl, { connectionName: 'waymark-send-rate' }),
    maxPerSecond: config.email.sendRate.maxPerSecond,
    workerShare: config.email.sendRate.workerShare,
    readSesMaxSendRate: createSesSendQuotaReader({ region: config.email.sesRegion, endpoint: config.email.sesEndpoint, apiKey: config.email.providerApiKey }),
    logger,
  });
}
