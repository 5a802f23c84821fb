import type { ColumnDef } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { components } from '../api/schema';
import { useSession } from '../api/session';
import { DataTable } from '../components/data-table';
import { Badge, ErrorPanel } from '../components/feedback';
import { formatNumber } from '../components/format';
import { PageHeader } from '../components/page';
import { Pagination } from '../components/pagination';
import { optional, useUrlState } from '../components/url-state';
import { useJourneyUpdateMutation } from '../data/journeys/journey-update-mutation';
import { useJourneysQuery } from '../data/journeys/journeys-query';

type Journey = components['schemas']['JourneySummary'];

/** Enable/disable switch (editors and up); takes effect on the next trigger, running enrollments go on. */
function EnabledToggle({ journey }: { journey: Journey }) {
  const toggle = useJourneyUpdateMutation(journey.id);
  return (
    <span className="stack" style={{ gap: 4 }}>
      <label className="switch">
        <input type="checkbox" checked={journey.enabled} disabled={toggle.isPending} onChange={(event) => toggle.mutate(event.target.checked)} />
        {journey.enabled ? 'Enabled' : 'Disabled'}
        <span className="visually-hidden"> {journey.name}</span>
      </label>
      {toggle.isError ? <ErrorPanel error={toggle.error} /> : null}
    </span>
  );
}

/** /studio/journeys?enabled=true|false: every journey in code, its trigger, switch and state counts. */
export default function Journeys() {
  const { can } = useSession();
  const url = useUrlState();
  const enabled = url.get('enabled');
  const list = useJourneysQuery({ limit: url.limit, offset: url.offset, enabled: optional(enabled) as 'true' | 'false' | undefined });
  const columns: ColumnDef<Journey, unknown>[] = [
    {
      header: 'Journey',
      cell: ({ row }) => (
        <>
          <Link to={`/studio/journeys/${encodeURIComponent(row.original.id)}`}>{row.original.name}</Link>
          <div className="muted">{row.original.description}</div>
        </>
      ),
    },
    { header: 'Trigger', cell: ({ row }) => <code>{row.original.trigger.event}</code> },
    {
      header: 'Enabled',
      cell: ({ row }) => (can.manageJourneys ? <EnabledToggle journey={row.original} /> : <Badge value={row.original.enabled ? 'enabled' : 'disabled'} />),
    },
    { header: 'Entry limit', cell: ({ row }) => row.original.entryLimit },
    ...(['active', 'waiting', 'completed', 'failed', 'exited'] as const).map((status): ColumnDef<Journey, unknown> => ({
      header: status[0]?.toUpperCase() + status.slice(1),
      cell: ({ row }) => (
        <Link to={`/studio/journeys/${encodeURIComponent(row.original.id)}?status=${status}`}>{formatNumber(row.original.counts[status])}</Link>
      ),
    })),
  ];
  return (
    <>
      <PageHeader title="Journeys" description="Journeys are defined in code (journeys/); here you switch them on or off and see who is where." />
      <div className="filters">
        <label className="field">
          Show
          <select value={enabled} onChange={(event) => url.set({ enabled: event.target.value })}>
            <option value="">All journeys</option>
            <option value="true">Enabled</option>
            <option value="false">Disabled</option>
          </select>
        </label>
      </div>
      <DataTable
        label="Journeys"
        columns={columns}
        rows={list.data?.journeys}
        isLoading={list.isPending}
        error={list.error}
        empty="No journeys match. Journeys are files in journeys/ registered in journeys/index.ts (see docs/journeys.md)."
      />
      <Pagination total={list.data?.total} />
    </>
  );
}
