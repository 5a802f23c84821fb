import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import type { components } from '../../api/schema';
import { useSession } from '../../api/session';
import { AdminOnly } from '../../components/admin-only';
import { ConfirmButton } from '../../components/confirm-button';
import { DataTable } from '../../components/data-table';
import { Badge, ErrorPanel } from '../../components/feedback';
import { formatDate } from '../../components/format';
import { PageHeader } from '../../components/page';
import { Pagination } from '../../components/pagination';
import { useUrlState } from '../../components/url-state';
import { useAlertHistoryQuery } from '../../data/alerts/alert-history-query';
import { useAlertRuleCreateMutation, useAlertRuleDeleteMutation, useAlertRuleUpdateMutation } from '../../data/alerts/alert-rule-mutations';
import { useAlertRulesQuery } from '../../data/alerts/alert-rules-query';
import { RuleForm } from './alerts/rule-form';
import { alertTypes, draftOf, type Rule, type RuleBody } from './alerts/rule-input';

type Fired = components['schemas']['AlertHistoryEntry'];

/** Where a rule's notice goes: the URL or the address of its channel config. */
function target(rule: Rule): string {
  const config = rule.channelConfig as Record<string, unknown>;
  const value = config.url ?? config.webhookUrl ?? config.to;
  return typeof value === 'string' ? value : '—';
}

function CreateRule() {
  const [generation, setGeneration] = useState(0);
  const create = useAlertRuleCreateMutation({ onSuccess: () => setGeneration((value) => value + 1) });
  return (
    <section className="card stack" aria-labelledby="create-rule">
      <h2 id="create-rule">Add a rule</h2>
      <RuleForm
        key={generation}
        id="create-rule"
        initial={draftOf(undefined)}
        submitLabel="Add rule"
        busy={create.isPending}
        error={create.error}
        onSubmit={(body) => create.mutate(body)}
      />
      {create.isSuccess ? <p role="status">Rule “{create.data.name}” added; it is checked every minute.</p> : null}
    </section>
  );
}

function EditRule({ rule, onDone }: { rule: Rule; onDone(): void }) {
  const update = useAlertRuleUpdateMutation({ onSuccess: onDone });
  return (
    <section className="card stack" aria-labelledby="edit-rule">
      <h2 id="edit-rule">Edit “{rule.name}”</h2>
      <RuleForm
        id="edit-rule"
        initial={draftOf(rule)}
        submitLabel="Save rule"
        busy={update.isPending}
        error={update.error}
        onSubmit={(body: RuleBody) => update.mutate({ id: rule.id, body })}
        onCancel={onDone}
      />
    </section>
  );
}

const historyColumns: ColumnDef<Fired, unknown>[] = [
  { header: 'When', cell: ({ row }) => formatDate(row.original.triggeredAt) },
  { header: 'Rule', cell: ({ row }) => row.original.ruleName },
  { header: 'Value', cell: ({ row }) => `${row.original.currentValue} (threshold ${row.original.threshold})` },
  { header: 'Channel', cell: ({ row }) => row.original.channel },
  { header: 'Delivered', cell: ({ row }) => <Badge value={row.original.delivered ? 'delivered' : 'failed'} /> },
];

/** /studio/settings/alerts?ruleId=: alert rules (create, edit, switch, delete) and when they fired (docs/operations.md). */
export default function Alerts() {
  const { can } = useSession();
  const url = useUrlState();
  const ruleId = url.get('ruleId');
  const [editing, setEditing] = useState<string>();
  const rules = useAlertRulesQuery({ enabled: can.administer });
  const setEnabled = useAlertRuleUpdateMutation();
  const remove = useAlertRuleDeleteMutation();
  const history = useAlertHistoryQuery({ limit: url.limit, offset: url.offset, ...(ruleId === '' ? {} : { ruleId }) }, { enabled: can.administer });
  if (!can.administer) return <AdminOnly title="Alerts" />;
  const edited = rules.data?.rules.find((rule) => rule.id === editing);
  const ruleColumns: ColumnDef<Rule, unknown>[] = [
    { header: 'Name', cell: ({ row }) => row.original.name },
    {
      header: 'Fires when',
      cell: ({ row }) => (
        <span title={row.original.type}>
          {alertTypes[row.original.type].label} {row.original.threshold}
        </span>
      ),
    },
    {
      header: 'Channel',
      cell: ({ row }) => (
        <span className="stack" style={{ gap: 2 }}>
          {row.original.channel}
          <code className="muted">{target(row.original)}</code>
        </span>
      ),
    },
    { header: 'Cooldown', cell: ({ row }) => `${row.original.cooldownMinutes} min` },
    { header: 'State', cell: ({ row }) => <Badge value={row.original.enabled ? 'enabled' : 'disabled'} /> },
    { header: 'Last fired', cell: ({ row }) => formatDate(row.original.lastTriggeredAt) },
    {
      header: 'Actions',
      cell: ({ row }) => {
        const rule = row.original;
        return (
          <span className="row">
            <button type="button" onClick={() => setEditing(rule.id)}>
              Edit
            </button>
            <button type="button" disabled={setEnabled.isPending} onClick={() => setEnabled.mutate({ id: rule.id, body: { enabled: !rule.enabled } })}>
              {rule.enabled ? 'Disable' : 'Enable'}
            </button>
            <ConfirmButton
              label="Delete"
              title={`Delete the rule “${rule.name}”?`}
              confirmLabel="Delete rule"
              danger
              onConfirm={async () => {
                await remove.mutateAsync(rule.id);
                if (rule.id === ruleId) url.set({ ruleId: '' });
              }}
            >
              Its history goes with it. To stop it for a while, disable it instead.
            </ConfirmButton>
          </span>
        );
      },
    },
  ];
  return (
    <div className="stack">
      <PageHeader
        title="Alerts"
        description="Rules that watch bounce, complaint and delivery rates, journey failures and disabled webhook endpoints every minute, and when they fired."
      />
      {edited === undefined ? <CreateRule /> : <EditRule key={edited.id} rule={edited} onDone={() => setEditing(undefined)} />}
      {setEnabled.isError ? <ErrorPanel error={setEnabled.error} /> : null}
      <section aria-labelledby="rules">
        <h2 id="rules">Rules</h2>
        <DataTable
          label="Alert rules"
          columns={ruleColumns}
          rows={rules.data?.rules}
          isLoading={rules.isPending}
          error={rules.error}
          empty="No alert rules yet. Add one above, for example bounces above 5% to your on-call webhook."
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
          empty="No alert has fired. Rules fire when their value crosses the threshold over the last hour, at most once per cooldown."
        />
        <Pagination total={history.data?.total} />
      </section>
    </div>
  );
}
