import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useSession } from '../../api/session';
import { AdminOnly } from '../../components/admin-only';
import { DataTable } from '../../components/data-table';
import { Badge } from '../../components/feedback';
import { formatDate } from '../../components/format';
import { PageHeader } from '../../components/page';
import { Pagination } from '../../components/pagination';
import { useUrlState } from '../../components/url-state';

type Rule = components['schemas']['AlertRule'];
type Fired = components['schemas']['AlertHistoryEntry'];

const ruleColumns: ColumnDef<Rule, unknown>[] = [
  { header: 'Name', cell: ({ row }) => row.original.name },
  { header: 'Type', cell: ({ row }) => <code>{row.original.type}</code> },
  { header: 'Threshold', cell: ({ row }) => row.original.threshold },
  { header: 'Channel', cell: ({ row }) => row.original.channel },
  { header: 'Cooldown', cell: ({ row }) => `${row.original.cooldownMinutes} min` },
  { header: 'State', cell: ({ row }) => <Badge value={row.original.enabled ? 'enabled' : 'disabled'} /> },
  { header: 'Last fired', cell: ({ row }) => formatDate(row.original.lastTriggeredAt) },
];

const historyColumns: ColumnDef<Fired, unknown>[] = [
  { header: 'When', cell: ({ row }) => formatDate(row.original.triggeredAt) },
  { header: 'Rule', cell: ({ row }) => row.original.ruleName },
  { header: 'Value', cell: ({ row }) => `${row.original.currentValue} (threshold ${row.original.threshold})` },
  { header: 'Channel', cell: ({ row }) => row.original.channel },
  { header: 'Delivered', cell: ({ row }) => <Badge value={row.original.delivered ? 'delivered' : 'failed'} /> },
];

/** /studio/settings/alerts?ruleId=: alert rules and when they fired. Rules are managed through the API (docs/operations.md). */
export default function Alerts() {
  const { can } = useSession();
  const url = useUrlState();
  const ruleId = url.get('ruleId');
  const rules = useQuery({ queryKey: ['alerts', 'rules'], queryFn: async () => unwrap(await api.GET('/v1/admin/alerts/rules')), enabled: can.administer });
  const history = useQuery({
    queryKey: ['alerts', 'history', ruleId, url.offset],
    queryFn: async () =>
      unwrap(await api.GET('/v1/admin/alerts/history', { params: { query: { limit: url.limit, offset: url.offset, ...(ruleId === '' ? {} : { ruleId }) } } })),
    enabled: can.administer,
  });
  if (!can.administer) return <AdminOnly title="Alerts" />;
  return (
    <div className="stack">
      <PageHeader title="Alerts" description="Rules that watch bounce, complaint and delivery rates and journey failures, and their history." />
      <section aria-labelledby="rules">
        <h2 id="rules">Rules</h2>
        <DataTable
          label="Alert rules"
          columns={ruleColumns}
          rows={rules.data?.rules}
          isLoading={rules.isPending}
          error={rules.error}
          empty="No alert rules. Create one with POST /v1/admin/alerts/rules (docs/operations.md lists the types and channels)."
        />
      </section>
      <section aria-labelledby="history">
        <h2 id="history">History</h2>
        <label className="field" style={{ maxWidth: 320, marginBottom: 12 }}>
          Rule
          <select value={ruleId} onChange={(e) => url.set({ ruleId: e.target.value })}>
            <option value="">Every rule</option>
            {(rules.data?.rules ?? []).map((rule) => (
              <option key={rule.id} value={rule.id}>
                {rule.name}
              </option>
            ))}
          </select>
        </label>
        <DataTable
          label="Alert history"
          columns={historyColumns}
          rows={history.data?.alerts}
          isLoading={history.isPending}
          error={history.error}
          empty="No alert has fired."
        />
        <Pagination total={history.data?.total} />
      </section>
    </div>
  );
}
