import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import type { components } from '../api/schema';
import { useSession } from '../api/session';
import { AdminOnly } from '../components/admin-only';
import { DataTable } from '../components/data-table';
import { Badge, ErrorPanel } from '../components/feedback';
import { formatDate } from '../components/format';
import { PageHeader } from '../components/page';
import { Pagination } from '../components/pagination';
import { optional, useUrlState } from '../components/url-state';
import { useDlqActionMutation } from '../data/dlq/dlq-action-mutation';
import { useDlqQuery } from '../data/dlq/dlq-query';

type Entry = components['schemas']['DlqEntry'];
type Status = Entry['status'];

/** /studio/dlq?status=&source=: work that failed for good; retry it through its pipeline or discard it. */
export default function DeadLetters() {
  const { can } = useSession();
  const url = useUrlState();
  const status = url.get('status');
  const source = url.get('source');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const list = useDlqQuery(
    { limit: url.limit, offset: url.offset, status: optional(status) as Status | undefined, source: optional(source) },
    { enabled: can.administer },
  );
  const act = useDlqActionMutation({ onSettled: () => setSelected(new Set()) });
  const toggle = (id: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const columns: ColumnDef<Entry, unknown>[] = [
    {
      id: 'select',
      header: () => <span className="visually-hidden">Select</span>,
      cell: ({ row }) =>
        row.original.status === 'pending' ? (
          <input
            type="checkbox"
            aria-label={`Select entry ${row.original.id}`}
            checked={selected.has(row.original.id)}
            onChange={() => toggle(row.original.id)}
          />
        ) : null,
    },
    { header: 'Source', cell: ({ row }) => row.original.source },
    { header: 'Reason', cell: ({ row }) => row.original.error },
    { header: 'Status', cell: ({ row }) => <Badge value={row.original.status} /> },
    { header: 'Created', cell: ({ row }) => formatDate(row.original.createdAt) },
    {
      header: 'Payload',
      cell: ({ row }) => (
        <details>
          <summary>Show</summary>
          <pre>{JSON.stringify(row.original.payload, null, 2)}</pre>
        </details>
      ),
    },
    {
      header: 'Actions',
      cell: ({ row }) =>
        row.original.status === 'pending' ? (
          <div className="row">
            <button type="button" disabled={act.isPending} onClick={() => act.mutate({ action: 'retry', ids: [row.original.id] })}>
              Retry
            </button>
            <button type="button" className="danger" disabled={act.isPending} onClick={() => act.mutate({ action: 'discard', ids: [row.original.id] })}>
              Discard
            </button>
          </div>
        ) : (
          formatDate(row.original.retriedAt)
        ),
    },
  ];
  if (!can.administer) return <AdminOnly title="Dead letters" />;
  return (
    <>
      <PageHeader
        title="Dead letters"
        description="Sends and deliveries that failed for good. Retry re-queues one through its original pipeline."
        actions={
          selected.size > 0 ? (
            <>
              <button type="button" onClick={() => act.mutate({ action: 'retry', ids: [...selected] })} disabled={act.isPending}>
                Retry {selected.size} selected
              </button>
              <button type="button" className="danger" onClick={() => act.mutate({ action: 'discard', ids: [...selected] })} disabled={act.isPending}>
                Discard {selected.size} selected
              </button>
            </>
          ) : undefined
        }
      />
      <div className="filters">
        <label className="field">
          Status
          <select value={status} onChange={(e) => url.set({ status: e.target.value })}>
            <option value="">Any status</option>
            <option>pending</option>
            <option>retried</option>
            <option>discarded</option>
          </select>
        </label>
        <label className="field">
          Source
          <select value={source} onChange={(e) => url.set({ source: e.target.value })}>
            <option value="">Any source</option>
            <option>email</option>
            <option>journey</option>
            <option>webhook</option>
          </select>
        </label>
      </div>
      {act.isError ? <ErrorPanel error={act.error} /> : null}
      {act.isSuccess ? (
        <p role="status">
          Done: {act.data} entr{act.data === 1 ? 'y' : 'ies'}.
        </p>
      ) : null}
      <DataTable
        label="Dead-letter entries"
        columns={columns}
        rows={list.data?.entries}
        isLoading={list.isPending}
        error={list.error}
        empty="Nothing here: every send and delivery went through (or is still being retried)."
      />
      <Pagination total={list.data?.total} />
    </>
  );
}
