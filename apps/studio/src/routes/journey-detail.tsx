import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { ExternalLink } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { useSession } from '../api/session';
import { ConfirmButton } from '../components/confirm-button';
import { DataTable } from '../components/data-table';
import { Badge, ErrorPanel, Skeleton } from '../components/feedback';
import { formatDate } from '../components/format';
import { PageHeader } from '../components/page';
import { Pagination } from '../components/pagination';
import { optional, useUrlState } from '../components/url-state';

type JourneyState = components['schemas']['JourneyState'];
type StateStatus = JourneyState['status'];
const statuses: StateStatus[] = ['active', 'waiting', 'completed', 'failed', 'exited'];
const live = new Set<StateStatus>(['active', 'waiting']);

function Funnel({ journeyId }: { journeyId: string }) {
  const funnel = useQuery({
    queryKey: ['journeys', journeyId, 'funnel'],
    queryFn: async () => unwrap(await api.GET('/v1/admin/journeys/{id}/funnel', { params: { path: { id: journeyId } } })),
  });
  if (funnel.isPending) return <Skeleton rows={3} />;
  if (funnel.isError) return <ErrorPanel error={funnel.error} />;
  const steps = funnel.data.steps;
  if (steps.length === 0) return <p className="muted">Nobody has entered this journey yet. Enroll someone below or send its trigger event.</p>;
  const top = Math.max(...steps.map((step) => step.enrollments), 1);
  return (
    <table aria-label="Funnel">
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col">Action</th>
          <th scope="col">Enrollments</th>
        </tr>
      </thead>
      <tbody>
        {steps.map((step) => (
          <tr key={`${step.nodeId}:${step.action}`}>
            <td>
              <code>{step.nodeId}</code>
            </td>
            <td>{step.action}</td>
            <td style={{ width: '50%' }}>
              <div className="row">
                <div
                  aria-hidden
                  style={{ background: 'var(--accent)', height: 10, borderRadius: 4, width: `${(step.enrollments / top) * 80}%`, minWidth: 2 }}
                />
                {step.enrollments}
              </div>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** `: quiet_hours until 2026-12-01T08:00+01:00` for a held send (the recipient's clock), else nothing. */
function holdNote(detail: Record<string, unknown> | null): string {
  const reason = detail?.reason;
  const until = detail?.localUntil;
  return typeof reason === 'string' && typeof until === 'string' ? `: ${reason} until ${until}` : '';
}

type JourneyDetailBody = components['schemas']['JourneyDetail'];

/** "v3a9f1c (this deployment): 1,204 running · 1,180 waiting at sleep:2 days" per version with live runs. */
function Versions({ detail }: { detail: JourneyDetailBody }) {
  return (
    <div className="stack">
      <p>
        This deployment runs version <code>{detail.version === null ? 'unknown' : `v${detail.version}`}</code>.
      </p>
      {detail.runningVersions.length === 0 ? (
        <p className="muted">No enrollment is running.</p>
      ) : (
        <table aria-label="Running versions">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Running</th>
              <th scope="col">Where</th>
            </tr>
          </thead>
          <tbody>
            {detail.runningVersions.map((entry) => (
              <tr key={entry.version ?? 'unknown'}>
                <td>
                  <code>{entry.version === null ? 'unknown (started before versions)' : `v${entry.version}`}</code>
                  {entry.version !== null && entry.version === detail.version ? ' (this deployment)' : null}
                </td>
                <td>{entry.running.toLocaleString('en-US')}</td>
                <td>
                  {entry.steps.map((step) => (
                    <div key={`${step.nodeId}:${step.status}`}>
                      {step.count.toLocaleString('en-US')} {step.status} at <code>{step.nodeId}</code>
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function StateLogs({ stateId }: { stateId: string }) {
  const logs = useQuery({
    queryKey: ['journey-logs', stateId],
    queryFn: async () => unwrap(await api.GET('/v1/admin/journey-logs/{stateId}', { params: { path: { stateId } } })),
  });
  if (logs.isPending) return <Skeleton rows={2} />;
  if (logs.isError) return <ErrorPanel error={logs.error} />;
  return (
    <ol className="timeline" aria-label="Run log">
      {logs.data.logs.map((log) => (
        <li key={log.id}>
          <span className="muted">{formatDate(log.createdAt)}</span>
          <span>
            <strong>{log.action}</strong>
            {holdNote(log.detail)} {log.fromNodeId === null ? '' : `${log.fromNodeId} → `}
            <code>{log.toNodeId}</code>
          </span>
        </li>
      ))}
    </ol>
  );
}

function Enroll({ journeyId, batch }: { journeyId: string; batch: boolean }) {
  const queryClient = useQueryClient();
  const [userId, setUserId] = useState('');
  const [userEmail, setUserEmail] = useState('');
  const [csv, setCsv] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['journeys'] });
  const one = useMutation({
    mutationFn: async () => unwrap(await api.POST('/v1/admin/journeys/{id}/enroll', { params: { path: { id: journeyId } }, body: { userId, userEmail } })),
    onSuccess: refresh,
  });
  const many = useMutation({
    mutationFn: async () => {
      const users = csv
        .split('\n')
        .map((line) => line.split(',').map((cell) => cell.trim()))
        .filter(([id, email]) => id !== undefined && id !== '' && email !== undefined && email !== '' && id !== 'userId')
        .map(([id, email]) => ({ userId: id ?? '', userEmail: email ?? '' }));
      return unwrap(await api.POST('/v1/admin/journeys/{id}/enroll/batch', { params: { path: { id: journeyId } }, body: { users } }));
    },
    onSuccess: refresh,
  });
  const submitOne = (event: FormEvent) => {
    event.preventDefault();
    one.mutate();
  };
  return (
    <section className="card stack" aria-labelledby="enroll">
      <h2 id="enroll">Enroll</h2>
      <form className="filters" onSubmit={submitOne}>
        <label className="field">
          User id
          <input required value={userId} onChange={(e) => setUserId(e.target.value)} />
        </label>
        <label className="field">
          Email
          <input type="email" required value={userEmail} onChange={(e) => setUserEmail(e.target.value)} />
        </label>
        <button type="submit" className="primary" disabled={one.isPending}>
          Enroll user
        </button>
      </form>
      {one.isSuccess ? (
        <p role="status">
          Dispatched {one.data.event} for {one.data.userId}; entry rules decide whether a run starts.
        </p>
      ) : null}
      {one.isError ? <ErrorPanel error={one.error} /> : null}
      {batch ? (
        <form
          className="stack"
          onSubmit={(event) => {
            event.preventDefault();
            many.mutate();
          }}
        >
          <label className="field">
            Batch (one <code>userId,email</code> per line, up to 500)
            <textarea value={csv} onChange={(e) => setCsv(e.target.value)} style={{ minHeight: 100 }} />
          </label>
          <div>
            <button type="submit" disabled={many.isPending || csv.trim() === ''}>
              Enroll batch
            </button>
          </div>
          {many.isSuccess ? (
            <p role="status">
              {many.data.enrolled} enrolled, {many.data.skipped} skipped by entry rules.
            </p>
          ) : null}
          {many.isError ? <ErrorPanel error={many.error} /> : null}
        </form>
      ) : null}
    </section>
  );
}

/** /studio/journeys/:id?status=&userId=&state=: funnel, enrollments filtered by status or user, enroll, cancel, run links and logs. */
export default function JourneyDetail() {
  const { id = '' } = useParams();
  const { can } = useSession();
  const url = useUrlState();
  const status = url.get('status');
  const userId = url.get('userId');
  const queryClient = useQueryClient();
  // ?state= opens that enrollment's log (the event page links here), so it is part of the URL
  const openLogs = url.get('state');
  const setOpenLogs = (stateId: string | undefined) => url.set({ state: stateId ?? '', offset: url.offset === 0 ? '' : String(url.offset) });
  const journey = useQuery({
    queryKey: ['journeys', id, 'detail'],
    queryFn: async () => unwrap(await api.GET('/v1/admin/journeys/{id}', { params: { path: { id } } })),
  });
  const links = useQuery({ queryKey: ['studio-links'], queryFn: async () => unwrap(await api.GET('/v1/admin/studio-links')), staleTime: Infinity });
  const states = useQuery({
    queryKey: ['journeys', id, 'states', status, userId, url.offset],
    queryFn: async () =>
      unwrap(
        await api.GET('/v1/admin/journeys/{id}/states', {
          params: {
            path: { id },
            query: { limit: url.limit, offset: url.offset, status: optional(status) as StateStatus | undefined, userId: optional(userId) },
          },
        }),
      ),
  });
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
              onConfirm={async () => {
                unwrap(await api.DELETE('/v1/admin/journeys/{id}/states/{stateId}', { params: { path: { id, stateId: row.original.id } } }));
                await queryClient.invalidateQueries({ queryKey: ['journeys'] });
              }}
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
