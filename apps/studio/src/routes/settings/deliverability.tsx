import type { ColumnDef } from '@tanstack/react-table';
import type { components } from '../../api/schema';
import { DataTable } from '../../components/data-table';
import { Badge } from '../../components/feedback';
import { formatNumber } from '../../components/format';
import { PageHeader } from '../../components/page';
import { useDeliverabilityQuery } from '../../data/deliverability/deliverability-query';
import { BreakerSection } from './deliverability/breaker-section';

type Check = components['schemas']['DeliverabilityCheck'];
type Warmup = components['schemas']['Warmup'];
type WarmupDay = Warmup['days'][number];

const checkColumns: ColumnDef<Check, unknown>[] = [
  { header: 'Status', cell: ({ row }) => <Badge value={row.original.status} /> },
  { header: 'Check', cell: ({ row }) => <code>{row.original.id}</code> },
  { header: 'Found', cell: ({ row }) => row.original.detail },
  { header: 'Fix', cell: ({ row }) => row.original.fix ?? '—' },
];

const allowanceText = (allowance: number | null) => (allowance === null ? 'no cap: the ramp is over' : formatNumber(allowance));

function warmupColumns(today: string): ColumnDef<WarmupDay, unknown>[] {
  return [
    { header: 'Day (UTC)', cell: ({ row }) => (row.original.day === today ? `${row.original.day} (today)` : row.original.day) },
    { header: 'Marketing sends allowed', cell: ({ row }) => allowanceText(row.original.allowance) },
    { header: 'Sent', cell: ({ row }) => (row.original.day > today ? '—' : formatNumber(row.original.used)) },
    { header: 'Next day', cell: ({ row }) => (row.original.held ? 'held: bounces or complaints crossed a slow threshold' : '—') },
  ];
}

/** The warm-up ramp: today's use, then its days so far and ahead (docs/email.md, "Warm-up"). */
function WarmupSection({ warmup, isLoading }: { warmup: Warmup | null | undefined; isLoading: boolean }) {
  return (
    <section aria-labelledby="warmup">
      <h2 id="warmup">Warm-up</h2>
      {warmup === null && (
        <p>
          No warm-up ramp: marketing mail goes at full volume. A new sending domain sets <code>warmup</code> in <code>journeys/delivery-policy.ts</code>.
        </p>
      )}
      {warmup != null && (
        <>
          <p>
            From {formatNumber(warmup.startPerDay)} marketing sends a day, ×{warmup.growth} a day until {formatNumber(warmup.until)}.{' '}
            {warmup.complete ? (
              'The ramp is over: marketing mail is no longer capped by it.'
            ) : (
              <strong>
                Today: {formatNumber(warmup.today.used)} of {allowanceText(warmup.today.allowance)} used
              </strong>
            )}
          </p>
          <DataTable
            label="Warm-up plan"
            columns={warmupColumns(warmup.today.day)}
            rows={warmup.days}
            isLoading={isLoading}
            error={null}
            empty="No days yet."
          />
        </>
      )}
    </section>
  );
}

/** /studio/settings/deliverability: the doctor's checks (what `waymark doctor` prints), the reputation breaker (resumed here by a full-admin) and the warm-up ramp. */
export default function Deliverability() {
  const doctor = useDeliverabilityQuery();
  const checks = doctor.data?.checks;
  const count = (status: Check['status']) => (checks ?? []).filter((check) => check.status === status).length;
  return (
    <div className="stack">
      <PageHeader
        title="Deliverability"
        description={
          <>
            The sending domain&apos;s DNS, the SES account, what Waymark sends and the last 24 hours&apos; bounce and complaint rates, checked now; the same
            list as <code>npm run waymark -- doctor</code>.
          </>
        }
        actions={
          <button type="button" onClick={() => void doctor.refetch()} disabled={doctor.isFetching}>
            {doctor.isFetching ? 'Checking…' : 'Check again'}
          </button>
        }
      />
      <section aria-labelledby="checks">
        <h2 id="checks">Checks</h2>
        {checks !== undefined && (
          <p role="status">
            {count('fail')} failing, {count('warn')} warning{count('warn') === 1 ? '' : 's'}, {count('pass')} passing
          </p>
        )}
        <DataTable label="Deliverability checks" columns={checkColumns} rows={checks} isLoading={doctor.isLoading} error={doctor.error} empty="No checks." />
      </section>
      <BreakerSection rows={doctor.data?.breaker} settings={doctor.data?.breakerSettings} isLoading={doctor.isLoading} />
      <WarmupSection warmup={doctor.data?.warmup} isLoading={doctor.isLoading} />
    </div>
  );
}
