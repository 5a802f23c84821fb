import type { ColumnDef } from '@tanstack/react-table';
import type { components, paths } from '../../api/schema';
import { DataTable } from '../../components/data-table';
import { DateRange, rangeQuery } from '../../components/date-range';
import { formatDate } from '../../components/format';
import { PageHeader } from '../../components/page';
import { Pagination } from '../../components/pagination';
import { SearchBox } from '../../components/search-box';
import { optional, useUrlState } from '../../components/url-state';
import { useAuditLogsQuery } from '../../data/audit-logs/audit-logs-query';

type Entry = components['schemas']['AuditLogEntry'];
type Filters = NonNullable<paths['/v1/admin/audit-logs']['get']['parameters']['query']>;
type Resource = NonNullable<Filters['resource']>;
type Action = NonNullable<Filters['action']>;
// every value the API's filter takes: a Record over the generated types, so the compiler flags a
// value the API adds or drops (the studio cannot import the server's lists)
const resourceSet: Record<Resource, true> = {
  contact: true,
  journey: true,
  'api-key': true,
  'alert-rule': true,
  email: true,
  event: true,
  dlq: true,
  'webhook-endpoint': true,
  segment: true,
  broadcast: true,
  user: true,
  organization: true,
  member: true,
  invitation: true,
  deliverability: true,
};
const actionSet: Record<Action, true> = {
  create: true,
  update: true,
  delete: true,
  revoke: true,
  enroll: true,
  cancel: true,
  import: true,
  export: true,
  replay: true,
  resend: true,
  simulate: true,
  rotate: true,
  test: true,
  send: true,
  pause: true,
  resume: true,
  'sign-in': true,
  'sign-in-failed': true,
  'sign-out': true,
  'request-password-reset': true,
  'reset-password': true,
  'change-password': true,
  invite: true,
  'accept-invitation': true,
};
const resources = Object.keys(resourceSet);
const actions = Object.keys(actionSet);

/** A person (signed in through the studio) by name with their email, or a key by its name. */
function Actor({ entry }: { entry: Entry }) {
  const person = entry.actorDetail;
  if (person !== undefined)
    return (
      <span title={person.id ?? undefined}>
        <span className="badge">user</span> {person.name ?? person.email}
        {person.name !== null && <span className="muted"> {person.email}</span>}
      </span>
    );
  return (
    <span title={entry.actorKeyId ?? undefined}>
      <span className="badge">{entry.actorKeyId === null ? 'legacy key' : 'key'}</span> {entry.actor}
    </span>
  );
}

const columns: ColumnDef<Entry, unknown>[] = [
  { header: 'When', cell: ({ row }) => formatDate(row.original.createdAt) },
  { header: 'Actor', cell: ({ row }) => <Actor entry={row.original} /> },
  { header: 'Action', cell: ({ row }) => row.original.action },
  { header: 'Resource', cell: ({ row }) => `${row.original.resource}${row.original.resourceId === null ? '' : ` ${row.original.resourceId}`}` },
  { header: 'Detail', cell: ({ row }) => (row.original.detail === null ? '—' : <code>{JSON.stringify(row.original.detail)}</code>) },
  { header: 'IP', cell: ({ row }) => row.original.ipAddress },
];

/** /studio/settings/audit-log?actor=&action=&resource=&from=&to=: who changed what, from where. */
export default function AuditLog() {
  const url = useUrlState();
  const actor = url.get('actor');
  const action = url.get('action');
  const resource = url.get('resource');
  const filter = {
    actor: optional(actor),
    action: optional(action) as Action | undefined,
    resource: optional(resource) as Resource | undefined,
    ...rangeQuery(url),
  };
  const list = useAuditLogsQuery({ limit: url.limit, offset: url.offset, ...filter });
  return (
    <>
      <PageHeader title="Audit log" description="Every change made through the admin API or the studio, by key or by person." />
      <div className="filters">
        <SearchBox label="Actor" value={actor} onChange={(value) => url.set({ actor: value })} />
        <label className="field">
          Action
          <select value={action} onChange={(e) => url.set({ action: e.target.value })}>
            <option value="">Any action</option>
            {actions.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
        <label className="field">
          Resource
          <select value={resource} onChange={(e) => url.set({ resource: e.target.value })}>
            <option value="">Any resource</option>
            {resources.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
        <DateRange url={url} />
      </div>
      <DataTable
        label="Audit log"
        columns={columns}
        rows={list.data?.logs}
        isLoading={list.isPending}
        error={list.error}
        empty="No changes recorded for these filters."
      />
      <Pagination total={list.data?.total} />
    </>
  );
}
