import type { ColumnDef } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { components } from '../api/schema';
import { useSession } from '../api/session';
import { ConfirmButton } from '../components/confirm-button';
import { DataTable } from '../components/data-table';
import { DateRange, rangeQuery } from '../components/date-range';
import { Badge, Empty, ErrorPanel, Skeleton } from '../components/feedback';
import { formatDate } from '../components/format';
import { PageHeader } from '../components/page';
import { Pagination } from '../components/pagination';
import { SearchBox } from '../components/search-box';
import { optional, useUrlState } from '../components/url-state';
import { useEventJourneysQuery } from '../data/events/event-journeys-query';
import { useEventsReplayMutation, useReplayJobStartMutation } from '../data/events/event-replay-mutations';
import { useEventsQuery } from '../data/events/events-query';
import { useQuarantinedEventCountQuery } from '../data/events/quarantined-event-count-query';
import { useReplayJobQuery } from '../data/events/replay-job-query';

type Event = components['schemas']['Event'];
const effectLabel = { started: 'Started', resumed: 'Resumed', exited: 'Exited' } as const;
type ReplayJob = components['schemas']['ReplayJob'];
// the API's documented maxima (docs/operations.md): up to 50 inside the request, up to 100,000 as a background job
const MAX_SYNC_REPLAY = 50;
const MAX_JOB_REPLAY = 100_000;

/** The runs an event started, resumed or exited, each linked to its journey and its enrollment there. */
function EventJourneys({ eventId, userId }: { eventId: string; userId: string }) {
  const journeys = useEventJourneysQuery(eventId);
  if (journeys.isPending) return <Skeleton rows={1} />;
  if (journeys.isError) return <ErrorPanel error={journeys.error} />;
  if (journeys.data.journeys.length === 0) return <Empty>This event started, resumed or exited no journey run.</Empty>;
  return (
    <ul aria-label="Journeys of this event">
      {journeys.data.journeys.map((run) => {
        const journey = `/studio/journeys/${encodeURIComponent(run.journeyId)}`;
        const state = `${journey}?${new URLSearchParams({ userId, state: run.stateId }).toString()}`;
        return (
          <li key={`${run.effect}-${run.stateId}`}>
            {effectLabel[run.effect]} <Link to={journey}>{run.journeyName ?? run.journeyId}</Link> at <code>{run.nodeId}</code>, {formatDate(run.at)} ·{' '}
            <Link to={state}>enrollment</Link> <Badge value={run.status} />
          </li>
        );
      })}
    </ul>
  );
}

/** Where a quarantined event misses the event catalog (docs/journeys.md, "Catalog violations"). */
function CatalogViolations({ violations }: { violations: NonNullable<Event['catalogViolations']> }) {
  return (
    <div className="notice">
      <p>Quarantined: stored, but it started, resumed and exited no journey, because its properties miss the event catalog:</p>
      <ul aria-label="Catalog violations">
        {violations.map((violation) => (
          <li key={violation.path}>
            <code>{violation.path}</code>: {violation.message}
          </li>
        ))}
      </ul>
      <p>Fix the catalog (journeys/events.ts) or the producer, then replay the event: it is routed as any other.</p>
    </div>
  );
}

/** /studio/events?event=&userId=&from=&to=&quarantined=&open=: the event stream, an event's properties and journeys, replay (full admins). */
export default function Events() {
  const { can } = useSession();
  const url = useUrlState();
  // the open event is in the URL too, so an event's detail is a link to share
  const open = url.get('open');
  const toggle = (id: string) => url.set({ open: open === id ? '' : id, offset: url.offset === 0 ? '' : String(url.offset) });
  const name = url.get('event');
  const userId = url.get('userId');
  const quarantinedOnly = url.get('quarantined') === 'true';
  // the list takes the flag as a query string, a replay's filter as a boolean
  const filter = { event: optional(name), userId: optional(userId), ...rangeQuery(url), ...(quarantinedOnly ? { quarantined: true } : {}) };
  const listQuery = { ...filter, quarantined: quarantinedOnly ? ('true' as const) : undefined };
  const list = useEventsQuery({ limit: url.limit, offset: url.offset, ...listQuery });
  const quarantined = useQuarantinedEventCountQuery();
  const replay = useEventsReplayMutation();
  const replayJobStart = useReplayJobStartMutation();
  const replayJob = useReplayJobQuery(replayJobStart.data?.id);
  const total = list.data?.total ?? 0;
  const replayMatching = async () => {
    if (total <= MAX_SYNC_REPLAY) return replay.mutateAsync({ filter, limit: MAX_SYNC_REPLAY });
    await replayJobStart.mutateAsync({ filter, limit: Math.min(total, MAX_JOB_REPLAY) });
  };
  const columns: ColumnDef<Event, unknown>[] = [
    {
      header: 'Event',
      cell: ({ row }) => (
        <>
          <button type="button" aria-expanded={open === row.original.id} onClick={() => toggle(row.original.id)}>
            <code>{row.original.event}</code>
          </button>
          {row.original.catalogViolations === undefined ? null : (
            <>
              {' '}
              <Badge value="quarantined" />
            </>
          )}
        </>
      ),
    },
    { header: 'User', cell: ({ row }) => <Link to={`/studio/contacts/${encodeURIComponent(row.original.userId)}`}>{row.original.userId}</Link> },
    { header: 'Occurred', cell: ({ row }) => formatDate(row.original.occurredAt) },
    {
      header: 'Detail',
      cell: ({ row }) =>
        open === row.original.id ? (
          <div className="stack">
            {row.original.catalogViolations === undefined ? null : <CatalogViolations violations={row.original.catalogViolations} />}
            <pre>{JSON.stringify(row.original.properties, null, 2)}</pre>
            <EventJourneys eventId={row.original.id} userId={row.original.userId} />
            {can.administer ? (
              <div>
                <button type="button" disabled={replay.isPending} onClick={() => replay.mutate({ eventIds: [row.original.id] })}>
                  Replay this event
                </button>
              </div>
            ) : null}
          </div>
        ) : (
          <span className="muted">{Object.keys(row.original.properties).length} properties</span>
        ),
    },
  ];
  const hasFilter = filter.event !== undefined || filter.userId !== undefined || 'from' in filter || 'to' in filter || quarantinedOnly;
  const quarantinedCount = quarantined.data ?? 0;
  return (
    <>
      <PageHeader
        title="Events"
        description="Everything your product and Waymark itself reported, newest first."
        actions={
          can.administer && hasFilter && total > 0 ? (
            <ConfirmButton label="Replay matching…" title="Replay matching events?" confirmLabel="Replay" onConfirm={replayMatching}>
              {Math.min(total, MAX_JOB_REPLAY)} of the {total} matching events go through the pipeline again, oldest first
              {total > MAX_SYNC_REPLAY ? ' as a background job' : ''}: they may start journeys and exit enrollments as they did the first time.
            </ConfirmButton>
          ) : undefined
        }
      />
      {quarantinedCount > 0 && !quarantinedOnly ? (
        <div className="notice" role="status">
          {quarantinedCount} event(s) quarantined: their properties miss the event catalog, so they were stored but moved no journey.{' '}
          <button type="button" onClick={() => url.set({ quarantined: 'true' })}>
            Show quarantined events
          </button>
        </div>
      ) : null}
      <div className="filters">
        <SearchBox label="Event name" value={name} onChange={(value) => url.set({ event: value })} />
        <SearchBox label="User id" value={userId} onChange={(value) => url.set({ userId: value })} />
        <DateRange url={url} />
        <label>
          <input type="checkbox" checked={quarantinedOnly} onChange={(event) => url.set({ quarantined: event.target.checked ? 'true' : '' })} /> Quarantined
          only
        </label>
      </div>
      {replay.isSuccess ? (
        <p role="status">
          Replayed {replay.data.replayed} event(s){replay.data.errors.length > 0 ? `, ${replay.data.errors.length} failed` : ''}.
        </p>
      ) : null}
      {replay.isError ? <ErrorPanel error={replay.error} /> : null}
      {replayJob.data !== undefined ? <ReplayJobStatus job={replayJob.data} /> : null}
      {replayJobStart.isError ? <ErrorPanel error={replayJobStart.error} /> : null}
      {replayJob.isError ? <ErrorPanel error={replayJob.error} /> : null}
      <DataTable
        label="Events"
        columns={columns}
        rows={list.data?.events}
        isLoading={list.isPending}
        error={list.error}
        empty={hasFilter ? 'No events match these filters.' : 'No events yet. Send one with POST /v1/events (see the README).'}
      />
      <Pagination total={list.data?.total} />
    </>
  );
}

function ReplayJobStatus({ job }: { job: ReplayJob }) {
  const failed = job.failed > 0 ? `, ${job.failed} failed` : '';
  if (job.status === 'failed') return <p role="alert">Replay job failed: {job.errors.find((error) => error.eventId === null)?.error ?? 'see the job'}.</p>;
  if (job.status === 'completed')
    return (
      <p role="status">
        Replay job done: replayed {job.processed} of {job.matched} event(s){failed}.
      </p>
    );
  return (
    <p role="status">
      Replay job {job.status}: {job.processed + job.failed} of {job.matched || '…'} event(s){failed}.
    </p>
  );
}
