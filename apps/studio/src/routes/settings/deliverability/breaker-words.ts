import type { components } from '../../../api/schema';
import { formatHours, formatNumber } from '../../../components/format';
import type { BreakerResumed } from '../../../data/deliverability/breaker-resume-mutation';

type BreakerSettings = components['schemas']['ReputationBreakerSettings'];

// a threshold as it was set: 0.001 is "0.1 %", not "0.10 %"
const rateText = (rate: number) => `${formatNumber(Number((rate * 100).toFixed(3)))} %`;

/** When the breaker acts and lets go, in this installation's settings, so its states read without the docs. */
export function settingsText({ cooldownHours, windowHours, minSends, thresholds }: BreakerSettings): string {
  return (
    `Per category group and mailbox provider, over the last ${formatHours(windowHours)} and once it has ${formatNumber(minSends)} sends: ` +
    `slowed from ${rateText(thresholds.slowBounceRate)} bounces or ${rateText(thresholds.slowComplaintRate)} complaints, ` +
    `paused from ${rateText(thresholds.pauseBounceRate)} or ${rateText(thresholds.pauseComplaintRate)}; ` +
    `back to ok by itself after ${formatHours(cooldownHours)} under the slow thresholds.`
  );
}

export const WHAT_RESUMING_DOES =
  'Held journey emails go out at their next look and the broadcasts the breaker paused resume. The bounces and complaints counted so far are set ' +
  'aside for one window, so they do not trip it again; new ones can.';

/** "Resumed marketing/gmail (was paused). 1 broadcast the breaker had paused resumed." */
export function resumedText({ resumed, broadcasts }: BreakerResumed): string {
  if (resumed.length === 0) return 'Nothing to resume: no breaker was slowed or paused any more.';
  const breakers = resumed.map((row) => `${row.group}/${row.provider} (was ${row.from})`).join(', ');
  const paused =
    broadcasts.length === 0
      ? `No broadcast was paused by ${resumed.length === 1 ? 'it' : 'them'}.`
      : `${formatNumber(broadcasts.length)} broadcast${broadcasts.length === 1 ? '' : 's'} the breaker had paused resumed.`;
  return `Resumed ${breakers}. ${paused}`;
}
