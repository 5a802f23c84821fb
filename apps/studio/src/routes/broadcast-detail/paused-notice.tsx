import { Link } from 'react-router';
import type { components } from '../../api/schema';
import { formatHours } from '../../components/format';
import { useDeliverabilityQuery } from '../../data/deliverability/deliverability-query';

type Broadcast = components['schemas']['Broadcast'];

/** `pausedReason` of a broadcast the reputation breaker paused (REPUTATION_PAUSE in packages/core). */
const REPUTATION = 'reputation';

/**
 * The breaker's cooldown as GET /v1/admin/deliverability says it is set ("6 hours"); while that
 * loads, or if it cannot be read, the setting's name, which is right whatever its value.
 */
function Cooldown() {
  const hours = useDeliverabilityQuery().data?.breakerSettings.cooldownHours;
  if (hours === undefined) return <>(REPUTATION_COOLDOWN_HOURS)</>;
  return <>({formatHours(hours)})</>;
}

/**
 * Why a paused broadcast is paused. The reputation breaker's pause lifts with the breaker
 * (docs/email.md, "Reputation breaker"): its cooldown or an admin resuming it resumes the broadcast
 * too, while Resume on the broadcast alone meets the hold again at the next held recipient. An
 * admin's pause carries no reason; any other reason is shown as it is.
 */
export function PausedNotice({ broadcast }: { broadcast: Broadcast }) {
  if (broadcast.status !== 'paused') return null;
  if (broadcast.pausedReason === REPUTATION)
    return (
      <p className="notice" role="status" data-testid="broadcast-paused">
        Paused by Waymark: the bounce or complaint rate of marketing mail to a mailbox provider some of its recipients use crossed the reputation breaker’s
        pause threshold. It resumes by itself when the breaker does: once the rates have stayed under the slow thresholds for the breaker’s cooldown{' '}
        <Cooldown />, or when an admin resumes the breaker. Resume before then pauses it again at the next held recipient. The breaker is in{' '}
        <Link to="/studio/settings/deliverability">Settings → Deliverability</Link> (docs/email.md, “Reputation breaker”).
      </p>
    );
  return (
    <p className="notice" role="status" data-testid="broadcast-paused">
      {broadcast.pausedReason === null
        ? 'Paused by an admin: nothing more is sent until it is resumed.'
        : `Paused (reason “${broadcast.pausedReason}”): nothing more is sent until it is resumed.`}
    </p>
  );
}
