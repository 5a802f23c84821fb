import type { EmailTemplate } from '@waymark/email/email-template';
import authInvitation from './auth-invitation';
import authPasswordReset from './auth-password-reset';
import orderReceipt from './order-receipt';
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

/**
 * Every email template of this deployment. The api and the worker build a TemplateRegistry from
 * this list (`createTemplateRegistry`); journeys refer to templates by key only, so the workflow
 * bundle never includes React. Add a template by importing its file here.
 */
export const emailTemplates: readonly EmailTemplate[] = [
  welcome,
  welcomeTips,
  welcomeGettingStarted,
  trialWelcome,
  trialPricingFollowup,
  trialLastChance,
  reengageWeMissYou,
  reengageWelcomeBack,
  reengageLastCall,
  orderReceipt,
  trialEnding,
  // studio accounts (docs/auth.md)
  authPasswordReset,
  authInvitation,
];
