import type { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import authInvitation from './auth-invitation';
import authPasswordReset from './auth-password-reset';
import firstProjectNudge from './first-project-nudge';
import firstProjectTips from './first-project-tips';
import orderReceipt from './order-receipt';
import paymentFailed from './payment-failed';
import paymentFinalNotice from './payment-final-notice';
import reengageLastCall from './reengage-last-call';
import reengageWeMissYou from './reengage-we-miss-you';
import reengageWelcomeBack from './reengage-welcome-back';
import trialEnding from './trial-ending';
import trialLastChance from './trial-last-chance';
import trialPricingFollowup from './trial-pricing-followup';
import trialWelcome from './trial-welcome';
import welcome from './welcome';
import welcomeGettingStarted from './welcome-getting-started';
import welcomeTips from './welcome-tips';
import systemAlert from './system-alert';

/**
 * Every email template of this deployment, by key. The api and the worker build a TemplateRegistry
 * from `emailTemplates` (`createTemplateRegistry`); journeys refer to templates by key only, and
 * take `TemplateProps` with `import type`, so the workflow bundle never includes React. Add a
 * template by importing its file and listing it here under its key.
 */
const templatesByKey = {
  welcome: welcome,
  'welcome-tips': welcomeTips,
  'welcome-getting-started': welcomeGettingStarted,
  'trial-welcome': trialWelcome,
  'trial-pricing-followup': trialPricingFollowup,
  'trial-last-chance': trialLastChance,
  'reengage-we-miss-you': reengageWeMissYou,
  'reengage-welcome-back': reengageWelcomeBack,
  'reengage-last-call': reengageLastCall,
  'order-receipt': orderReceipt,
  'payment-failed': paymentFailed,
  'payment-final-notice': paymentFinalNotice,
  'trial-ending': trialEnding,
  'first-project-tips': firstProjectTips,
  'first-project-nudge': firstProjectNudge,
  // studio accounts (docs/auth.md)
  'auth-password-reset': authPasswordReset,
  'auth-invitation': authInvitation,
  // operator notices of alert rules (docs/email.md, "System emails")
  'system-alert': systemAlert,
} as const;

export const emailTemplates: readonly EmailTemplate[] = Object.values(templatesByKey);

/** Template key → the `data` its props schema accepts: what `ctx.sendEmail(key, { data })` is checked against. */
export type TemplateProps = { [K in keyof typeof templatesByKey]: z.input<(typeof templatesByKey)[K]['schema']> };

/** The key each template is listed under (the registry test checks it is the template's own key). */
export const listedKeys: readonly string[] = Object.keys(templatesByKey);
