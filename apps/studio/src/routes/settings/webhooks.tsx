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
import { ShownOnce } from '../../components/shown-once';
import { useUrlState } from '../../components/url-state';
import {
  useWebhookEndpointCreateMutation,
  useWebhookEndpointDeleteMutation,
  useWebhookEndpointTestMutation,
  useWebhookEndpointUpdateMutation,
  useWebhookSecretRotateMutation,
} from '../../data/webhooks/webhook-endpoint-mutations';
import { useWebhookEndpointsQuery } from '../../data/webhooks/webhook-endpoints-query';
import { DELIVERIES_OFFSET, Deliveries } from './webhooks/deliveries';
import { EndpointForm, inputOf, type EndpointInput } from './webhooks/endpoint-form';

type Endpoint = components['schemas']['WebhookEndpoint'];

function CreateEndpoint() {
  // a new form after each creation, so the fields start empty again
  const [generation, setGeneration] = useState(0);
  const create = useWebhookEndpointCreateMutation({ onSuccess: () => setGeneration((value) => value + 1) });
  return (
    <section className="card stack" aria-labelledby="create-endpoint">
      <h2 id="create-endpoint">Add an endpoint</h2>
      <EndpointForm
        key={generation}
        initial={inputOf(undefined)}
        submitLabel="Add endpoint"
        busy={create.isPending}
        error={create.error}
        onSubmit={(input: EndpointInput) =>
          create.mutate({
            url: input.url,
            events: input.events,
            enabled: input.enabled,
            ...(input.description.trim() === '' ? {} : { description: input.description }),
          })
        }
      />
      {create.isSuccess ? <ShownOnce what="signing secret" value={create.data.secret} testId="new-webhook-secret" /> : null}
    </section>
  );
}

function EditEndpoint({ endpoint, onDone }: { endpoint: Endpoint; onDone(): void }) {
  const update = useWebhookEndpointUpdateMutation({ onSuccess: onDone });
  return (
    <section className="card stack" aria-labelledby="edit-endpoint">
      <h2 id="edit-endpoint">
        Edit <code>{endpoint.url}</code>
      </h2>
      <EndpointForm
        initial={inputOf(endpoint)}
        submitLabel="Save endpoint"
        busy={update.isPending}
        error={update.error}
        onSubmit={(input: EndpointInput) =>
          update.mutate({
            id: endpoint.id,
            body: { url: input.url, events: input.events, enabled: input.enabled, description: input.description.trim() === '' ? null : input.description },
          })
        }
        onCancel={onDone}
      />
    </section>
  );
}

/** The endpoint's state in words: why Waymark disabled it, or since when it fails. */
function EndpointState({ endpoint }: { endpoint: Endpoint }) {
  if (!endpoint.enabled) {
    return (
      <span className="stack" style={{ gap: 2 }}>
        <Badge value="disabled" />
        {endpoint.disabledReason === null ? null : <span className="muted">{endpoint.disabledReason}</span>}
      </span>
    );
  }
  return (
    <span className="stack" style={{ gap: 2 }}>
      <Badge value="enabled" />
      {endpoint.failingSince === null ? null : <span className="muted">failing since {formatDate(endpoint.failingSince)}</span>}
    </span>
  );
}

/** /studio/settings/webhooks?endpoint=: where Waymark POSTs signed events, and what it delivered (docs/webhooks.md). */
export default function Webhooks() {
  const { can } = useSession();
  const url = useUrlState();
  const selectedId = url.get('endpoint');
  const [editing, setEditing] = useState<string>();
  const [rotated, setRotated] = useState<{ url: string; secret: string }>();
  const [tested, setTested] = useState<{ url: string; eventId: string }>();
  const list = useWebhookEndpointsQuery({ limit: url.limit, offset: url.offset }, { enabled: can.administer });
  const setEnabled = useWebhookEndpointUpdateMutation({ refreshOnError: true });
  const sendTest = useWebhookEndpointTestMutation({
    onSuccess: (result, endpoint) => {
      setTested({ url: endpoint.url, eventId: result.eventId });
      url.set({ endpoint: endpoint.id, [DELIVERIES_OFFSET]: '' });
    },
  });
  const rotate = useWebhookSecretRotateMutation();
  const remove = useWebhookEndpointDeleteMutation();
  if (!can.administer) return <AdminOnly title="Webhooks" />;
  const endpoints = list.data?.endpoints ?? [];
  const selected = endpoints.find((endpoint) => endpoint.id === selectedId);
  const editedEndpoint = endpoints.find((endpoint) => endpoint.id === editing);
  const columns: ColumnDef<Endpoint, unknown>[] = [
    {
      header: 'URL',
      cell: ({ row }) => (
        <span className="stack" style={{ gap: 2 }}>
          <code>{row.original.url}</code>
          {row.original.description === null ? null : <span className="muted">{row.original.description}</span>}
        </span>
      ),
    },
    {
      header: 'Events',
      cell: ({ row }) => (
        <span title={row.original.events.join(', ')}>
          {row.original.events.length <= 2 ? row.original.events.join(', ') : `${row.original.events.length} types`}
        </span>
      ),
    },
    { header: 'State', cell: ({ row }) => <EndpointState endpoint={row.original} /> },
    { header: 'Created', cell: ({ row }) => formatDate(row.original.createdAt) },
    {
      header: 'Actions',
      cell: ({ row }) => {
        const endpoint = row.original;
        return (
          <span className="row">
            <button type="button" aria-pressed={endpoint.id === selectedId} onClick={() => url.set({ endpoint: endpoint.id, [DELIVERIES_OFFSET]: '' })}>
              Deliveries
            </button>
            <button type="button" onClick={() => setEditing(endpoint.id)}>
              Edit
            </button>
            <button type="button" disabled={setEnabled.isPending} onClick={() => setEnabled.mutate({ id: endpoint.id, body: { enabled: !endpoint.enabled } })}>
              {endpoint.enabled ? 'Disable' : 'Enable'}
            </button>
            <button type="button" disabled={sendTest.isPending} onClick={() => sendTest.mutate(endpoint)}>
              Send test
            </button>
            <ConfirmButton
              label="Rotate secret"
              title={`Rotate the secret of ${endpoint.url}?`}
              confirmLabel="Rotate secret"
              onConfirm={async () => {
                const result = await rotate.mutateAsync(endpoint.id);
                setRotated({ url: endpoint.url, secret: result.secret });
              }}
            >
              Every later delivery, retries included, is signed with the new secret at once. Let the receiver accept both secrets while you switch it over.
            </ConfirmButton>
            <ConfirmButton
              label="Delete"
              title={`Delete ${endpoint.url}?`}
              confirmLabel="Delete endpoint"
              danger
              onConfirm={async () => {
                // its deliveries leave the screen first, so no refresh of them asks for a deleted endpoint (404)
                if (endpoint.id === selectedId) url.set({ endpoint: '', [DELIVERIES_OFFSET]: '' });
                await remove.mutateAsync(endpoint.id);
              }}
            >
              Its open deliveries stop and its delivery history is deleted with it. To pause it instead, disable it.
            </ConfirmButton>
          </span>
        );
      },
    },
  ];
  return (
    <div className="stack">
      <PageHeader
        title="Webhooks"
        description="Endpoints where Waymark POSTs signed events (Standard Webhooks) when contacts, emails and journeys change, with retries for 24 hours."
      />
      {editedEndpoint === undefined ? (
        <CreateEndpoint />
      ) : (
        <EditEndpoint key={editedEndpoint.id} endpoint={editedEndpoint} onDone={() => setEditing(undefined)} />
      )}
      {rotated === undefined ? null : <ShownOnce what={`new signing secret of ${rotated.url}`} value={rotated.secret} testId="rotated-webhook-secret" />}
      {tested === undefined ? null : <p role="status">A webhook.test event is on its way to {tested.url}; its delivery is listed below.</p>}
      {setEnabled.isError ? <ErrorPanel error={setEnabled.error} /> : null}
      {sendTest.isError ? <ErrorPanel error={sendTest.error} /> : null}
      <section aria-labelledby="endpoints" className="stack">
        <h2 id="endpoints">Endpoints</h2>
        <DataTable
          label="Webhook endpoints"
          columns={columns}
          rows={list.data?.endpoints}
          isLoading={list.isPending}
          error={list.error}
          empty="No endpoints yet. Add one above with the URL of your receiver and the event types it wants; docs/webhooks.md shows how to verify the signature."
        />
        <Pagination total={list.data?.total} />
      </section>
      {selected === undefined ? null : <Deliveries endpointId={selected.id} url={selected.url} awaitedEventId={tested?.eventId} />}
    </div>
  );
}
