import { Link } from 'react-router';
import type { components } from '../../api/schema';
import { formatDate } from '../../components/format';

type Broadcast = components['schemas']['Broadcast'];

/**
 * A sending broadcast whose due recipients wait for the sending domain's next warm-up allowance
 * (docs/email.md, "Warm-up"): it is not stuck, only slowed, and says until when. `warmupUntil`
 * can outlive the sending (nothing clears it when the broadcast ends), so only `sending` shows it.
 */
export function WarmupNotice({ broadcast }: { broadcast: Broadcast }) {
  if (broadcast.status !== 'sending' || broadcast.warmupUntil === null) return null;
  return (
    <p className="notice" role="status" data-testid="broadcast-warmup">
      Slowed by the sending domain’s warm-up: today’s allowance is used, so the next recipients go out at {formatDate(broadcast.warmupUntil)} (your time). The
      ramp is in <Link to="/studio/settings/deliverability">Settings → Deliverability</Link> (docs/email.md, “Warm-up”).
    </p>
  );
}
