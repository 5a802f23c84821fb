import type { ColumnDef } from '@tanstack/react-table';
import { ExternalLink } from 'lucide-react';
import { Link, useParams } from 'react-router';
import type { components } from '../api/schema';
import { useSession } from '../api/session';
import { ConfirmButton } from '../components/confirm-button';
import { DataTable } from '../components/data-table';
import { Badge, ErrorPanel } from '../components/feedback';
import { formatDate } from '../components/format';
import { PageHeader } from '../components/page';
import { Pagination } from '../components/pagination';
import { optional, useUrlState } from '../components/url-state';
import { useJourneyQuery } from '../data/journeys/journey-query';
import { useJourneyStateCancelMutation } from '../data/journeys/journey-state-cancel-mutation';
import { useJourneyStatesQuery } from '../data/journeys/journey-states-query';
import { useStudioLinksQuery } from '../data/studio/studio-links-query';
import { Enroll } from './journey-detail/enroll';
import { Funnel } from './journey-detail/funnel';
import { JourneyMap } from './journey-detail/journey-map';
import { Outcomes } from './journey-detail/outcomes';
import { StateLogs } from './journey-detail/state-logs';
import { Versions } from './journey-detail/versions';

type JourneyState = components['schemas']['JourneyState'];
type StateStatus = JourneyState['status'];
const statuses: StateStatus[] = ['active', 'waiting', 'completed', 'failed', 'exited'];
const live = new Set<StateStatus>(['active', 'waiting']);

/** /studio/journeys/:id?status=&userId=&state=: map, outcomes (a journey with a goal or holdout), funnel, enrollments filtered by status or user, enroll, cancel, run links and logs. */
export default function JourneyDetail() {
  const { id = '' } = useParams();
  const { can } = useSession();
  const url = useUrlState();
  const status = url.get('status');
  const userId = url.get('userId');
  // ?state= opens that enrollment's log (the event page links here), so it is part of the URL
  const openLogs = url.get('state');
  const setOpenLogs = (stateId: string | undefined) => url.set({ state: stateId ?? '', offset: url.offset === 0 ? '' : String(url.offset) });
  const journey = useJourneyQuery(id);
  const links = useStudioLinksQuery();
  const states = useJourneyStatesQuery(id, {
    limit: url.limit,
    offset: url.offset,
    status: optional(status) as StateStatus | undefined,
    userId: optional(userId),
  });
  const cancel = useJourneyStateCancelMutation(id);
  const runUrl = (state: JourneyState) =>
    links.data === undefined
      ? undefined
      : `${links.data.temporalUiUrl}/namespaces/${encodeURIComponent(links.data.temporalNamespace)}/workflows/${encodeURIComponent(state.workflowId)}`;

  const columns: ColumnDef<JourneyState, unknown>[] = [
    {
      header: 'Contact',
      cell: ({ row }) => (
        <>
          <Link to={`/studio/contacts/${encodeURIComponent(row.original.userId)}`}>{row.original.userId}</Link>
          <div className="muted">{row.original.userEmail}</div>
        </>
      ),
    },
    { header: 'Status', cell: ({ row }) => <Badge value={row.original.status} /> },
    { header: 'Current step', cell: ({ row }) => <code>{row.original.currentNodeId}</code> },
    { header: 'Entered', cell: ({ row }) => formatDate(row.original.createdAt) },
    {
      header: 'Run',
      cell: ({ row }) => (
        <div className="row">
          <button
            type="button"
            aria-expanded={openLogs === row.original.id}
            onClick={() => setOpenLogs(openLogs === row.original.id ? undefined : row.original.id)}
          >
            Log
          </button>
          {runUrl(row.original) === undefined ? null : (
            <a href={runUrl(row.original)} target="_blank" rel="noreferrer">
              Temporal <ExternalLink size={12} aria-label="(opens in a new tab)" />
            </a>
          )}
          {can.manageJourneys && live.has(row.original.status) ? (
            <ConfirmButton
              label="Cancel"
              title="Cancel this enrollment?"
              confirmLabel="Cancel enrollment"
              danger
              onConfirm={() => cancel.mutateAsync(row.original.id)}
            >
              {row.original.userId} leaves the journey now (status exited) and its run is cancelled.
            </ConfirmButton>
          ) : null}
          {openLogs === row.original.id ? (
            <div style={{ flexBasis: '100%' }}>
              <StateLogs stateId={row.original.id} />
            </div>
          ) : null}
        </div>
      ),
    },
  ];

  if (journey.isError)
    return (
      <>
        <PageHeader title="Journey" />
        <ErrorPanel error={journey.error} />
      </>
    );
  const detail = journey.data?.journey;
  return (
    <div className="stack">
      <PageHeader
        title={detail?.name ?? 'Journey'}
        description={
          detail === undefined ? undefined : (
            <>
              Trigger <code>{detail.trigger.event}</code>
              {detail.exitOn.length > 0 ? (
                <>
                  {' '}
                  · exits on{' '}
                  {detail.exitOn.map((rule) => (
                    <code key={rule.event}>{rule.event} </code>
                  ))}
                </>
              ) : null}
              {detail.quietHours === null ? null : (
                <>
                  {' '}
                  · quiet hours {detail.quietHours.from}–{detail.quietHours.to} (recipient&apos;s time)
                </>
              )}{' '}
              · <Badge value={detail.enabled ? 'enabled' : 'disabled'} />
            </>
          )
        }
      />
      {detail === undefined ? null : (
        <section className="card" aria-labelledby="journey-map">
          <h2 id="journey-map">Map</h2>
          <JourneyMap detail={detail} />
        </section>
      )}
      {detail === undefined || (detail.goal === null && detail.holdout === null) ? null : (
        <section className="card" aria-labelledby="outcomes">
          <h2 id="outcomes">Outcomes</h2>
          <Outcomes detail={detail} />
        </section>
      )}
      <section className="card" aria-labelledby="funnel">
        <h2 id="funnel">Funnel</h2>
        <Funnel journeyId={id} />
      </section>
      {detail === undefined ? null : (
        <section className="card" aria-labelledby="versions">
          <h2 id="versions">Versions</h2>
          <Versions detail={detail} />
        </section>
      )}
      {can.manageJourneys ? <Enroll journeyId={id} batch={can.administer} /> : null}
      <section aria-labelledby="states">
        <h2 id="states">Enrollments</h2>
        <div className="filters">
          <label className="field">
            Status
            <select value={status} onChange={(e) => url.set({ status: e.target.value })}>
              <option value="">Any status</option>
              {statuses.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </label>
          {userId === '' ? null : (
            <p>
              Only user <code>{userId}</code> ·{' '}
              <button type="button" onClick={() => url.set({ userId: '', state: '' })}>
                Show everyone
              </button>
            </p>
          )}
        </div>
        <DataTable
          label="Enrollments"
          columns={columns}
          rows={states.data?.states}
          isLoading={states.isPending}
          error={states.error}
          empty={status === '' ? 'Nobody is enrolled yet. Enroll a user above or send the trigger event.' : `No enrollments are ${status}.`}
        />
        <Pagination total={states.data?.total} />
      </section>
    </div>
  );
}
