import type { ColumnDef } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { components } from '../api/schema';
import { DataTable } from '../components/data-table';
import { DateRange, rangeQuery } from '../components/date-range';
import { Badge } from '../components/feedback';
import { formatDate } from '../components/format';
import { PageHeader } from '../components/page';
import { Pagination } from '../components/pagination';
import { SearchBox } from '../components/search-box';
import { optional, useUrlState } from '../components/url-state';
import { useEmailsQuery } from '../data/emails/emails-query';

type EmailSend = components['schemas']['EmailSend'];
type EmailStatus = EmailSend['status'];
const statuses: EmailStatus[] = ['queued', 'rendered', 'sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'failed', 'cancelled'];

const columns: ColumnDef<EmailSend, unknown>[] = [
  { header: 'Subject', cell: ({ row }) => <Link to={`/studio/emails/${row.original.id}`}>{row.original.subject || row.original.templateKey}</Link> },
  { header: 'To', cell: ({ row }) => row.original.toEmail },
  { header: 'Template', cell: ({ row }) => <code>{row.original.templateKey}</code> },
  { header: 'Status', cell: ({ row }) => <Badge value={row.original.status} /> },
  { header: 'Created', cell: ({ row }) => formatDate(row.original.createdAt) },
];

/** /studio/emails?status=&templateKey=&toEmail=&from=&to=: every send, newest first. */
export default function Emails() {
  const url = useUrlState();
  const status = url.get('status');
  const templateKey = url.get('templateKey');
  const toEmail = url.get('toEmail');
  const list = useEmailsQuery({
    limit: url.limit,
    offset: url.offset,
    status: optional(status) as EmailStatus | undefined,
    templateKey: optional(templateKey),
    toEmail: optional(toEmail),
    ...rangeQuery(url),
  });
  return (
    <>
      <PageHeader title="Emails" description="Every email Waymark sent or tried to send, with what happened to it." />
      <div className="filters">
        <label className="field">
          Status
          <select value={status} onChange={(e) => url.set({ status: e.target.value })}>
            <option value="">Any status</option>
            {statuses.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
        <SearchBox label="Template" value={templateKey} onChange={(value) => url.set({ templateKey: value })} />
        <SearchBox label="Recipient" value={toEmail} onChange={(value) => url.set({ toEmail: value })} />
        <DateRange url={url} />
      </div>
      <DataTable
        label="Emails"
        columns={columns}
        rows={list.data?.emails}
        isLoading={list.isPending}
        error={list.error}
        empty="No emails match. Journeys send them as people move through; a template can be tried from Templates → Send test."
      />
      <Pagination total={list.data?.total} />
    </>
  );
}
