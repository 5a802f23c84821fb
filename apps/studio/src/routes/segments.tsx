import type { ColumnDef } from '@tanstack/react-table';
import { Plus } from 'lucide-react';
import { Link } from 'react-router';
import type { components } from '../api/schema';
import { useSession } from '../api/session';
import { DataTable } from '../components/data-table';
import { formatDate, formatNumber } from '../components/format';
import { PageHeader } from '../components/page';
import { Pagination } from '../components/pagination';
import { useUrlState } from '../components/url-state';
import { useSegmentsQuery } from '../data/segments/segments-query';

type Segment = components['schemas']['Segment'];

const columns: ColumnDef<Segment, unknown>[] = [
  {
    header: 'Segment',
    cell: ({ row }) => (
      <span className="stack" style={{ gap: 2 }}>
        <Link to={`/studio/segments/${row.original.id}`}>{row.original.name}</Link>
        {row.original.description === null ? null : <span className="muted">{row.original.description}</span>}
      </span>
    ),
  },
  { header: 'Contacts now', cell: ({ row }) => formatNumber(row.original.count) },
  { header: 'Changed', cell: ({ row }) => formatDate(row.original.updatedAt) },
];

/** /studio/segments?offset=: saved audiences with how many contacts each matches now. */
export default function Segments() {
  const { can } = useSession();
  const url = useUrlState();
  const list = useSegmentsQuery({ limit: url.limit, offset: url.offset });
  return (
    <>
      <PageHeader
        title="Segments"
        description="Saved audiences: conditions on contacts' properties, lists, events, email engagement and activity, counted live. Broadcasts send to them."
        actions={
          can.manageJourneys ? (
            <Link className="button primary" to="/studio/segments/new">
              <Plus size={14} aria-hidden /> New segment
            </Link>
          ) : undefined
        }
      />
      <DataTable
        label="Segments"
        columns={columns}
        rows={list.data?.segments}
        isLoading={list.isPending}
        error={list.error}
        empty={
          can.manageJourneys
            ? 'No segments yet. Create one with “New segment”: pick conditions and watch the count change as you go.'
            : 'No segments yet. An editor or admin can create them here.'
        }
      />
      <Pagination total={list.data?.total} />
    </>
  );
}
