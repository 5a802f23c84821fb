import type { TemplateRegistry } from '@waymark/email/email-template';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import type { EmailTransport } from '@waymark/email/ses-transport';
import type { EmailTokenSigner } from '@waymark/email/unsubscribe-token';
import type { Db } from '../db/database';
import type { BreakerStates } from '../deliverability/reputation-hold';
import type { DeliveryRules } from '../delivery/frequency-caps';
import type { AppLogger } from '../logging/logger';
import type { SendRateGovernor } from '../send-rate/send-rate-governor';

/** What the send path needs; built by the api and the worker from config (no singletons). */
export interface EmailDeps {
  db: Db;
  templates: TemplateRegistry;
  /** journeys/categories.ts: the send gate lets a required category's emails through opt-outs */
  categories: PreferenceCategories;
  transport: EmailTransport;
  tokens: EmailTokenSigner;
  /** API_PUBLIC_URL without a trailing slash */
  publicUrl: string;
  /** EMAIL_FROM */
  from: string;
  logger?: Pick<AppLogger, 'warn' | 'error'>;
  /** the installation's shared send budget (docs/email.md, "Send rate"); absent: sends are not rate-limited */
  sendRate?: SendRateGovernor;
  /** journeys/delivery-policy.ts: frequency caps of journey and broadcast sends (not of this send path itself), and what an unknown delivery becomes */
  delivery: DeliveryRules;
  /** SES event publishing is on (SES_EVENT_PUBLISHING): an unknown delivery waits `settleMs` for its event, then is sent again (unknown-delivery.ts) */
  unknownDeliveries?: { settleMs: number };
  /** the reputation breaker's states, read at most every few seconds per process (deliverability/reputation-hold.ts) */
  breakerStates: BreakerStates;
  /** REPUTATION_RECHECK_SECONDS: how often a journey email the reputation breaker holds looks again */
  reputationRecheckMs?: number;
}
