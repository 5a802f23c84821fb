import type { ColumnDef } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { components } from '../../api/schema';
import { DataTable } from '../../components/data-table';
import { Badge } from '../../components/feedback';
import { Options } from '../../components/options';
import { Pagination } from '../../components/pagination';
import { optional, useUrlState } from '../../components/url-state';
import { useBroadcastRecipientsQuery } from '../../data/broadcasts/broadcast-recipients-query';

type Broadcast = components['schemas']['Broadcast'];
type Recipient = components['schemas']['BroadcastRecipient'];
type Status = Recipient['status'];

const statuses: Status[] = ['pending', 'sent', 'failed', 'skipped', 'cancelled'];

const columns: ColumnDef<Recipient, unknown>[] = [
  {
    header: 'Contact',
    cell: ({ row }) => (
      <Link to={`/studio/contacts/${encodeURIComponent(row.original.contactId)}`}>{row.original.userId ?? row.original.email ?? row.original.contactId}</Link>
    ),
  },
  { header: 'Email', cell: ({ row }) => row.original.email ?? '—' },
  { header: 'Variant', cell: ({ row }) => row.original.variantId ?? '—' },
  {
    header: 'Status',
    cell: ({ row }) => (
      <span className="stack" style={{ gap: 2 }}>
        <Badge value={row.original.status} />
        {row.original.reason === null ? null : <span className="muted">{row.original.reason.replaceAll('_', ' ')}</span>}
      </span>
    ),
  },
  { header: 'Email sent', cell: ({ row }) => (row.original.emailId === null ? '—' : <Link to={`/studio/emails/${row.original.emailId}`}>view email</Link>) },
];

/** /studio/broadcasts/:id?status=&variant=: who got it, who was skipped and why; the filters are in the URL. */
export function Recipients({ broadcast, refetchInterval }: { broadcast: Broadcast; refetchInterval: number | false }) {
  const url = useUrlState();
  const status = url.get('status');
  const variant = url.get('variant');
  const list = useBroadcastRecipientsQuery(
    broadcast.id,
    { limit: url.limit, offset: url.offset, status: optional(status) as Status | undefined, variantId: optional(variant) },
    refetchInterval,
  );
  return (
    <section className="stack" aria-labelledby="recipients-heading">
      <h2 id="recipients-heading">Recipients</h2>
      <div className="filters">
        <label className="field">
          Status
          <select value={status} onChange={(event) => url.set({ status: event.target.value })}>
            <option value="">any</option>
            <Options items={statuses} />
          </select>
        </label>
        {(broadcast.variants ?? []).length === 0 ? null : (
          <label className="field">
            Variant
            <select value={variant} onChange={(event) => url.set({ variant: event.target.value })}>
              <option value="">any</option>
              <Options items={(broadcast.variants ?? []).map((candidate) => candidate.id)} />
            </select>
          </label>
        )}
      </div>
      <DataTable
        label="Recipients"
        columns={columns}
        rows={list.data?.recipients}
        isLoading={list.isPending}
        error={list.error}
        empty={
          broadcast.audienceSize === null
            ? 'No recipients yet: the audience is taken when sending starts.'
            : status === '' && variant === ''
              ? 'Nobody was in the audience when sending started.'
              : 'No recipient matches these filters.'
        }
      />
      <Pagination total={list.data?.total} />
    </section>
  );
}
