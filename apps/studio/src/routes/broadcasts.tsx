import type { ColumnDef } from '@tanstack/react-table';
import { Plus } from 'lucide-react';
import { Link } from 'react-router';
import type { components } from '../api/schema';
import { useSession } from '../api/session';
import { DataTable } from '../components/data-table';
import { Badge } from '../components/feedback';
import { formatDate, formatNumber } from '../components/format';
import { PageHeader } from '../components/page';
import { Pagination } from '../components/pagination';
import { useUrlState } from '../components/url-state';
import { useBroadcastsQuery } from '../data/broadcasts/broadcasts-query';
import { useSegmentsQuery } from '../data/segments/segments-query';
import { audienceLabel } from './broadcast-detail/audience-label';

type Broadcast = components['schemas']['Broadcast'];

function ProgressCell({ broadcast }: { broadcast: Broadcast }) {
  const { done, total } = broadcast.progress;
  if (broadcast.audienceSize === null) return <span className="muted">not started</span>;
  return (
    <span className="stack" style={{ gap: 2, minWidth: 120 }}>
      <progress className="progress" max={Math.max(total, 1)} value={done} aria-label={`${broadcast.name}: ${done} of ${total} done`} />
      <span className="muted">
        {formatNumber(done)} / {formatNumber(total)}
      </span>
    </span>
  );
}

/** /studio/broadcasts?offset=: one-off sends to an audience, newest first, with status and progress. */
export default function Broadcasts() {
  const { can } = useSession();
  const url = useUrlState();
  const list = useBroadcastsQuery({ limit: url.limit, offset: url.offset });
  const segments = useSegmentsQuery({ limit: 100, offset: 0 });
  const segmentName = (id: string) => segments.data?.segments.find((segment) => segment.id === id)?.name;
  const columns: ColumnDef<Broadcast, unknown>[] = [
    { header: 'Broadcast', cell: ({ row }) => <Link to={`/studio/broadcasts/${row.original.id}`}>{row.original.name}</Link> },
    { header: 'Status', cell: ({ row }) => <Badge value={row.original.status} /> },
    { header: 'Progress', cell: ({ row }) => <ProgressCell broadcast={row.original} /> },
    { header: 'Sent', cell: ({ row }) => formatNumber(row.original.stats.sent) },
    { header: 'Audience', cell: ({ row }) => audienceLabel(row.original.audience, segmentName) },
    { header: 'When', cell: ({ row }) => formatDate(row.original.startedAt ?? row.original.scheduledAt ?? row.original.createdAt) },
  ];
  return (
    <>
      <PageHeader
        title="Broadcasts"
        description="One email to an audience — an announcement, a newsletter, a notice — sent once to each contact, tracked like any other send."
        actions={
          can.manageJourneys ? (
            <Link className="button primary" to="/studio/broadcasts/new">
              <Plus size={14} aria-hidden /> New broadcast
            </Link>
          ) : undefined
        }
      />
      <DataTable
        label="Broadcasts"
        columns={columns}
        rows={list.data?.broadcasts}
        isLoading={list.isPending}
        error={list.error}
        empty={
          can.manageJourneys
            ? 'No broadcasts yet. Compose one with “New broadcast”: pick a template and an audience, test it, then send.'
            : 'No broadcasts yet. An editor or admin can send them from here.'
        }
      />
      <Pagination total={list.data?.total} />
    </>
  );
}
