import type { ColumnDef } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { components } from '../../api/schema';
import { DataTable } from '../../components/data-table';
import { useDebouncedValue } from '../../components/debounced';
import { ErrorPanel } from '../../components/feedback';
import { formatAgo, formatDate, formatNumber } from '../../components/format';
import { useSegmentPreviewQuery } from '../../data/segments/segment-preview-query';
import { problemOf, type Condition } from './conditions';

type Contact = components['schemas']['Contact'];

const columns: ColumnDef<Contact, unknown>[] = [
  {
    header: 'Contact',
    cell: ({ row }) => (
      <Link to={`/studio/contacts/${encodeURIComponent(row.original.id)}`}>{row.original.externalId ?? row.original.email ?? row.original.id}</Link>
    ),
  },
  { header: 'Email', cell: ({ row }) => row.original.email ?? '—' },
  { header: 'Last seen', cell: ({ row }) => <span title={formatDate(row.original.lastSeenAt)}>{formatAgo(row.original.lastSeenAt)}</span> },
];

/**
 * Who the tree matches right now: the count and up to 20 contacts from the API's preview, asked
 * 400 ms after the last edit, and only once the tree is complete (else what is missing, by path).
 */
export function SegmentPreview({ conditions }: { conditions: Condition }) {
  const settled = useDebouncedValue(conditions);
  const problem = problemOf(settled);
  const preview = useSegmentPreviewQuery(problem === undefined ? settled : undefined);
  const stale = problemOf(conditions) === undefined && (JSON.stringify(settled) !== JSON.stringify(conditions) || preview.isFetching);
  return (
    <section className="card stack" aria-labelledby="preview-heading">
      <h2 id="preview-heading">Who matches now</h2>
      {problem !== undefined ? (
        <p className="notice">To count, finish the condition at {problem}.</p>
      ) : preview.isError ? (
        <ErrorPanel error={preview.error} />
      ) : (
        <>
          <div className="stat" role="status" aria-live="polite" aria-label="Matching contacts">
            <div className="stat-value" data-testid="segment-count">
              {preview.data === undefined ? '…' : formatNumber(preview.data.count)}
            </div>
            <div className="stat-label">
              {stale || preview.data === undefined ? 'counting…' : preview.data.count === 1 ? 'contact matches' : 'contacts match'}
            </div>
          </div>
          <DataTable
            label="Sample of matching contacts"
            columns={columns}
            rows={preview.data?.sample}
            isLoading={preview.isPending}
            error={null}
            empty="Nobody matches these conditions yet."
          />
          {preview.data !== undefined && preview.data.count > preview.data.sample.length ? (
            <p className="muted">
              The first {preview.data.sample.length} of {formatNumber(preview.data.count)}, most recently seen first.
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}
