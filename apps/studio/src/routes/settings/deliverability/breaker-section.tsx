import type { ColumnDef } from '@tanstack/react-table';
import type { components } from '../../../api/schema';
import { useSession } from '../../../api/session';
import { ConfirmButton } from '../../../components/confirm-button';
import { DataTable } from '../../../components/data-table';
import { Badge } from '../../../components/feedback';
import { formatDate, formatNumber } from '../../../components/format';
import { useBreakerResumeMutation, type BreakerResume } from '../../../data/deliverability/breaker-resume-mutation';
import { resumedText, settingsText, WHAT_RESUMING_DOES } from './breaker-words';

type BreakerState = components['schemas']['ReputationBreakerState'];
type BreakerSettings = components['schemas']['ReputationBreakerSettings'];

const percent = (rate: number) => `${(rate * 100).toFixed(2)} %`;

const stateColumns: ColumnDef<BreakerState, unknown>[] = [
  { header: 'Group', cell: ({ row }) => row.original.group },
  { header: 'Provider', cell: ({ row }) => row.original.provider },
  { header: 'State', cell: ({ row }) => <Badge value={row.original.state} /> },
  { header: 'Sends', cell: ({ row }) => formatNumber(row.original.sends) },
  { header: 'Bounces', cell: ({ row }) => percent(row.original.bounceRate) },
  { header: 'Complaints', cell: ({ row }) => percent(row.original.complaintRate) },
  { header: 'Since', cell: ({ row }) => formatDate(row.original.since) },
];

/**
 * The reputation breaker's rows (docs/email.md, "Reputation breaker") and, for a full-admin when
 * any is tripped, its manual resume: every breaker or one row, each asked first, since a resume
 * sends again mail the breaker judged risky.
 */
export function BreakerSection({ rows, settings, isLoading }: { rows: BreakerState[] | undefined; settings: BreakerSettings | undefined; isLoading: boolean }) {
  const { can } = useSession();
  const resume = useBreakerResumeMutation();
  const tripped = (rows ?? []).some((row) => row.state !== 'ok');
  const resumeOne = (row: BreakerState) => {
    const only: BreakerResume = { group: row.group, provider: row.provider };
    return (
      <ConfirmButton
        label={
          <>
            Resume<span className="visually-hidden"> {`${row.group}/${row.provider}`}</span>
          </>
        }
        title={`Resume ${row.group} mail to ${row.provider}?`}
        confirmLabel="Resume the breaker"
        onConfirm={() => resume.mutateAsync(only)}
      >
        The breaker goes from {row.state} back to ok. {WHAT_RESUMING_DOES}
      </ConfirmButton>
    );
  };
  const columns: ColumnDef<BreakerState, unknown>[] =
    can.administer && tripped
      ? [...stateColumns, { header: 'Action', cell: ({ row }) => (row.original.state === 'ok' ? '—' : resumeOne(row.original)) }]
      : stateColumns;
  return (
    <section aria-labelledby="breaker">
      <h2 id="breaker">Reputation breaker</h2>
      {settings === undefined ? null : <p data-testid="breaker-settings">{settingsText(settings)}</p>}
      {tripped && can.administer ? (
        <div className="row">
          <ConfirmButton title="Resume every tripped breaker?" label="Resume all" confirmLabel="Resume all breakers" onConfirm={() => resume.mutateAsync({})}>
            Every slowed or paused breaker goes back to ok. {WHAT_RESUMING_DOES}
          </ConfirmButton>
        </div>
      ) : null}
      {tripped && !can.administer ? <p className="notice">Resuming the breaker by hand needs the admin role.</p> : null}
      {resume.data === undefined ? null : (
        <p role="status" data-testid="breaker-resumed">
          {resumedText(resume.data)}
        </p>
      )}
      <DataTable label="Reputation breaker" columns={columns} rows={rows} isLoading={isLoading} error={null} empty="Every group sends at its full rate." />
    </section>
  );
}
