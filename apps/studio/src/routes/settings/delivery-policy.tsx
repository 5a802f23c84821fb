import type { ColumnDef } from '@tanstack/react-table';
import type { components } from '../../api/schema';
import { DataTable } from '../../components/data-table';
import { ErrorPanel, Skeleton } from '../../components/feedback';
import { PageHeader } from '../../components/page';
import { useDeliveryPolicyQuery } from '../../data/delivery-policy/delivery-policy-query';
import { ProgramHoldoutOutcomes } from './program-holdout-outcomes';

type Cap = components['schemas']['DeliveryPolicy']['caps'][number];

const columns: ColumnDef<Cap, unknown>[] = [
  { header: 'Category', cell: ({ row }) => (row.original.everyCategory ? 'every category not exempt' : <code>{row.original.category}</code>) },
  { header: 'At most', cell: ({ row }) => `${row.original.max} per ${row.original.per}` },
  {
    header: 'Over the cap',
    cell: ({ row }) => (row.original.onCap === 'skip' ? 'skipped (frequency_cap)' : 'held until the window has room'),
  },
];

/** /studio/settings/delivery-policy: frequency caps, exempt categories, default quiet hours and the program holdout, read-only (they change in code). */
export default function DeliveryPolicy() {
  const policy = useDeliveryPolicyQuery();
  const data = policy.data?.policy;
  return (
    <div className="stack">
      <PageHeader
        title="Delivery policy"
        description={
          <>
            How many emails one person may get, across every journey and broadcast. Declared in <code>{data?.source ?? 'journeys/delivery-policy.ts'}</code>:
            change it there, in code review; it is read-only here.
          </>
        }
      />
      {policy.isError ? (
        <ErrorPanel error={policy.error} />
      ) : data === undefined ? (
        <Skeleton rows={3} />
      ) : (
        <>
          <section aria-labelledby="caps">
            <h2 id="caps">Frequency caps</h2>
            <DataTable
              label="Frequency caps"
              columns={columns}
              rows={data.caps}
              isLoading={false}
              error={null}
              empty="No frequency caps: every send goes out."
            />
          </section>
          <section className="card" aria-labelledby="exempt">
            <h2 id="exempt">Exempt categories</h2>
            {data.exempt.length === 0 ? (
              <p>None: every category may be capped.</p>
            ) : (
              <ul aria-label="Exempt categories">
                {data.exempt.map((category) => (
                  <li key={category}>
                    <code>{category}</code>
                  </li>
                ))}
              </ul>
            )}
            <p className="muted">Test sends are never capped either.</p>
          </section>
          <section className="card" aria-labelledby="quiet-hours">
            <h2 id="quiet-hours">Default quiet hours</h2>
            <p>
              {data.quietHours === null
                ? 'None: journeys hold sends only by their own quietHours.'
                : `${data.quietHours.from}–${data.quietHours.to} on the recipient's clock, for every journey that sets none of its own.`}
            </p>
          </section>
          <section className="card" aria-labelledby="program-holdout">
            <h2 id="program-holdout">Program holdout</h2>
            <p data-testid="program-holdout">
              {data.holdout === null
                ? 'None: everyone may get every category.'
                : `${data.holdout.percent} % of people get no ${data.holdout.categories.join(', ')} email from any journey or broadcast, to measure lifecycle email as a whole.`}
            </p>
            {data.holdout === null ? null : <ProgramHoldoutOutcomes />}
          </section>
        </>
      )}
    </div>
  );
}
