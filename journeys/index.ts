import type { Journey } from '@waymark/journey';
import firstProject from './first-project';
import paymentRecovery from './payment-recovery';
import reEngagement from './re-engagement';
import trialConversion from './trial-conversion';
import trialEnding from './trial-ending';
import welcomeSeries from './welcome-series';

/**
 * This deployment's journeys: the one registry. Add a journey by importing its file here. The
 * api, the worker and the workflow bundle all read this list, so a definition error stops each.
 */
export const journeys: readonly Journey[] = [welcomeSeries, trialConversion, reEngagement, trialEnding, paymentRecovery, firstProject];
