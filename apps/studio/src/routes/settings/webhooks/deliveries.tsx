import type { ColumnDef } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { components } from '../../../api/schema';
import { DataTable } from '../../../components/data-table';
import { Badge } from '../../../components/feedback';
import { formatDate } from '../../../components/format';
import { Pagination } from '../../../components/pagination';
import { useUrlState } from '../../../components/url-state';
import { useWebhookDeliveriesQuery } from '../../../data/webhooks/webhook-deliveries-query';

type Delivery = components['schemas']['WebhookDelivery'];

/** The URL key of this list's page, beside the endpoint list's `offset`. */
export const DELIVERIES_OFFSET = 'deliveriesOffset';

const columns: ColumnDef<Delivery, unknown>[] = [
  { header: 'Created', cell: ({ row }) => formatDate(row.original.createdAt) },
  { header: 'Event', cell: ({ row }) => <code>{row.original.eventType}</code> },
  { header: 'Status', cell: ({ row }) => <Badge value={row.original.status} /> },
  { header: 'Attempts', cell: ({ row }) => row.original.attempts },
  {
    header: 'Response',
    cell: ({ row }) => {
      const { lastStatusCode, lastDurationMs, lastError } = row.original;
      const answer = lastStatusCode === null ? (lastError ?? '—') : `HTTP ${lastStatusCode}`;
      return lastDurationMs === null ? answer : `${answer} in ${lastDurationMs} ms`;
    },
  },
  {
    header: 'Delivered / next attempt',
    cell: ({ row }) => {
      const { status, deliveredAt, nextAttemptAt } = row.original;
      if (status === 'failed') return <Link to="/studio/dlq?source=webhook-delivery&status=pending">in the dead-letter queue: retry it there</Link>;
      return deliveredAt !== null ? formatDate(deliveredAt) : nextAttemptAt !== null ? `next ${formatDate(nextAttemptAt)}` : '—';
    },
  },
];

/**
 * One endpoint's deliveries, newest first; a failed one is redelivered from the DLQ (docs/webhooks.md).
 * `awaitedEventId`: an event just queued (a test) whose delivery the worker has not created yet.
 */
export function Deliveries({ endpointId, url, awaitedEventId }: { endpointId: string; url: string; awaitedEventId: string | undefined }) {
  const state = useUrlState();
  const offset = state.offsetOf(DELIVERIES_OFFSET);
  const list = useWebhookDeliveriesQuery(endpointId, { limit: state.limit, offset }, awaitedEventId);
  return (
    <section aria-labelledby="deliveries" className="stack">
      <h2 id="deliveries">
        Deliveries to <code>{url}</code>
      </h2>
      <DataTable
        label={`Deliveries to ${url}`}
        columns={columns}
        rows={list.data?.deliveries}
        isLoading={list.isPending}
        error={list.error}
        empty="Nothing delivered yet. Events of the types this endpoint takes show up here as they happen; “Send test” sends one now."
      />
      <Pagination total={list.data?.total} param={DELIVERIES_OFFSET} />
    </section>
  );
}
