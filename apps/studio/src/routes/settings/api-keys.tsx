import type { ColumnDef } from '@tanstack/react-table';
import { useState, type FormEvent } from 'react';
import type { components } from '../../api/schema';
import { useSession } from '../../api/session';
import { AdminOnly } from '../../components/admin-only';
import { ConfirmButton } from '../../components/confirm-button';
import { DataTable } from '../../components/data-table';
import { Badge, ErrorPanel } from '../../components/feedback';
import { formatDate } from '../../components/format';
import { PageHeader } from '../../components/page';
import { Pagination } from '../../components/pagination';
import { ShownOnce } from '../../components/shown-once';
import { useUrlState } from '../../components/url-state';
import { useApiKeyCreateMutation, useApiKeyRevokeMutation } from '../../data/api-keys/api-key-mutations';
import { useApiKeysQuery } from '../../data/api-keys/api-keys-query';

type ApiKey = components['schemas']['ApiKeyRecord'];
type Scope = ApiKey['scopes'][number];
const scopes: { value: Scope; hint: string }[] = [
  { value: 'ingest', hint: 'send events, contacts and emails (your product)' },
  { value: 'read', hint: 'every admin GET' },
  { value: 'journey-admin', hint: 'read + switch journeys, enroll, cancel' },
  { value: 'full-admin', hint: 'everything' },
];

function CreateKey() {
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<Set<Scope>>(new Set(['ingest']));
  const [expires, setExpires] = useState('');
  const create = useApiKeyCreateMutation({ onSuccess: () => setName('') });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name, scopes: [...chosen], ...(expires === '' ? {} : { expiresAt: new Date(`${expires}T23:59:59`).toISOString() }) });
  };
  return (
    <section className="card stack" aria-labelledby="create-key">
      <h2 id="create-key">Create a key</h2>
      <form className="stack" onSubmit={submit}>
        <div className="filters">
          <label className="field">
            Name
            <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder="billing-service" />
          </label>
          <label className="field">
            Expires (optional)
            <input type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />
          </label>
        </div>
        <fieldset className="row" style={{ border: 'none', padding: 0 }}>
          <legend className="muted">Scopes</legend>
          {scopes.map(({ value, hint }) => (
            <label key={value} className="switch" title={hint}>
              <input
                type="checkbox"
                checked={chosen.has(value)}
                onChange={(e) =>
                  setChosen((current) => {
                    const next = new Set(current);
                    if (e.target.checked) next.add(value);
                    else next.delete(value);
                    return next;
                  })
                }
              />
              {value}
            </label>
          ))}
        </fieldset>
        <div>
          <button type="submit" className="primary" disabled={create.isPending || chosen.size === 0}>
            Create key
          </button>
        </div>
      </form>
      {create.isError ? <ErrorPanel error={create.error} /> : null}
      {create.isSuccess ? <ShownOnce what="key" value={create.data.key} testId="new-api-key" /> : null}
    </section>
  );
}

/** /studio/settings/api-keys?revoked=true: machine credentials; create (shown once) and revoke. */
export default function ApiKeys() {
  const { can } = useSession();
  const url = useUrlState();
  const includeRevoked = url.get('revoked') === 'true';
  const list = useApiKeysQuery({ limit: url.limit, offset: url.offset, includeRevoked: includeRevoked ? 'true' : 'false' }, { enabled: can.administer });
  const revoke = useApiKeyRevokeMutation();
  if (!can.administer) return <AdminOnly title="API keys" />;
  const columns: ColumnDef<ApiKey, unknown>[] = [
    { header: 'Name', cell: ({ row }) => row.original.name },
    { header: 'Prefix', cell: ({ row }) => <code>{row.original.keyPrefix}…</code> },
    { header: 'Scopes', cell: ({ row }) => row.original.scopes.join(', ') },
    { header: 'Last used', cell: ({ row }) => formatDate(row.original.lastUsedAt) },
    { header: 'Expires', cell: ({ row }) => formatDate(row.original.expiresAt) },
    {
      header: 'Actions',
      cell: ({ row }) =>
        row.original.revokedAt !== null ? (
          <Badge value="revoked" />
        ) : (
          <ConfirmButton
            label="Revoke"
            title={`Revoke ${row.original.name}?`}
            confirmLabel="Revoke key"
            danger
            onConfirm={() => revoke.mutateAsync(row.original.id)}
          >
            Clients using this key get 401 from now on. There is no undo: create a new key instead.
          </ConfirmButton>
        ),
    },
  ];
  return (
    <div className="stack">
      <PageHeader title="API keys" description="Keys for machines: your product sends events with an ingest key; scripts read with a read key." />
      <CreateKey />
      <label className="switch">
        <input type="checkbox" checked={includeRevoked} onChange={(e) => url.set({ revoked: e.target.checked ? 'true' : '' })} />
        Show revoked keys
      </label>
      <DataTable
        label="API keys"
        columns={columns}
        rows={list.data?.keys}
        isLoading={list.isPending}
        error={list.error}
        empty="No keys yet. Create one above."
      />
      <Pagination total={list.data?.total} />
    </div>
  );
}
