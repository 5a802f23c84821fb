import type { ColumnDef } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { components } from '../api/schema';
import { DataTable } from '../components/data-table';
import { formatAgo, formatDate } from '../components/format';
import { PageHeader } from '../components/page';
import { Pagination } from '../components/pagination';
import { SearchBox } from '../components/search-box';
import { optional, useUrlState } from '../components/url-state';
import { useContactsQuery } from '../data/contacts/contacts-query';

type Contact = components['schemas']['Contact'];

const columns: ColumnDef<Contact, unknown>[] = [
  { header: 'User id', cell: ({ row }) => <Link to={`/studio/contacts/${encodeURIComponent(row.original.id)}`}>{row.original.externalId}</Link> },
  { header: 'Email', cell: ({ row }) => row.original.email ?? '—' },
  { header: 'Last seen', cell: ({ row }) => <span title={formatDate(row.original.lastSeenAt)}>{formatAgo(row.original.lastSeenAt)}</span> },
  { header: 'First seen', cell: ({ row }) => formatDate(row.original.firstSeenAt) },
];

/** /studio/contacts?search=…: everyone Waymark knows, most recently seen first. */
export default function Contacts() {
  const url = useUrlState();
  const search = url.get('search');
  const list = useContactsQuery({ limit: url.limit, offset: url.offset, search: optional(search) });
  return (
    <>
      <PageHeader title="Contacts" description="People your product has sent events about. Find one to see their whole story." />
      <div className="filters">
        <SearchBox label="Search by email or user id" value={search} onChange={(value) => url.set({ search: value })} />
      </div>
      <DataTable
        label="Contacts"
        columns={columns}
        rows={list.data?.contacts}
        isLoading={list.isPending}
        error={list.error}
        empty={search === '' ? 'No contacts yet. They appear when your product sends its first event (POST /v1/events).' : `Nobody matches “${search}”.`}
      />
      <Pagination total={list.data?.total} />
    </>
  );
}
