import { createTemplateRegistry, type EmailTemplate } from '@waymark/email/email-template';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import { createSesTransport, type EmailTransport } from '@waymark/email/ses-transport';
import { createEmailTokenSigner } from '@waymark/email/unsubscribe-token';
import { NO_DELIVERY_POLICY, type DeliveryPolicy } from '@waymark/journey';
import type { Config } from '../config/config';
import type { Db } from '../db/database';
import { createBreakerStates } from '../deliverability/reputation-hold';
import type { AppLogger } from '../logging/logger';
import type { SendRateGovernor } from '../send-rate/send-rate-governor';
import type { EmailDeps } from './email-deps';

/** The send path's dependencies from configuration; the api and the worker each build one. */
export function createEmailDeps(
  config: Config,
  options: {
    db: Db;
    templates: readonly EmailTemplate[];
    /** journeys/categories.ts, checked */
    categories: PreferenceCategories;
    logger?: Pick<AppLogger, 'warn' | 'error'>;
    transport?: EmailTransport;
    sendRate?: SendRateGovernor;
    /** journeys/delivery-policy.ts (default: caps nothing) */
    deliveryPolicy?: DeliveryPolicy;
  },
): EmailDeps {
  return {
    db: options.db,
    templates: createTemplateRegistry(options.templates),
    categories: options.categories,
    transport:
      options.transport ??
      createSesTransport({
        region: config.email.sesRegion,
        endpoint: config.email.sesEndpoint,
        configurationSet: config.email.sesConfigurationSet,
        apiKey: config.email.providerApiKey,
      }),
    tokens: createEmailTokenSigner(config.authSecret),
    publicUrl: config.apiPublicUrl,
    from: config.email.from,
    delivery: { policy: options.deliveryPolicy ?? NO_DELIVERY_POLICY, defaultTimeZone: config.defaultTimeZone },
    breakerStates: createBreakerStates(options.db),
    reputationRecheckMs: config.email.reputation.recheckMs,
    ...(config.email.eventPublishing ? { unknownDeliveries: { settleMs: config.email.unknownSettleMs } } : {}),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.sendRate === undefined ? {} : { sendRate: options.sendRate }),
  };
}
