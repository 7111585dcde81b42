// The organization's webhook endpoints, for its owners and admins, through the admin routes their
// session may call (/v1/admin/organizations/{organizationId}/webhook-endpoints): each endpoint with
// its events and status (and why it was disabled), a new endpoint whose signing secret is shown
// once (the API answers it only once), a deletion confirmed in place. Refusals show the API's message.
import { useState } from 'react';
import { adminPath, apiSend } from '../../api/client.js';
import { useApi, useWrite } from '../../api/queries.js';
import type { WebhookEndpoint, WebhookEndpointList, WebhookEndpointWithSecret } from '../../api/types.js';
import { ConfirmButton } from '../../components/ConfirmButton.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { FormError, QueryState } from '../../components/QueryState.js';
import { ShownOnce } from '../../components/ShownOnce.js';
import { TextField } from '../../components/TextField.js';
import { dateTime } from '../../format/dates.js';

const ENDPOINTS = 'webhook-endpoints';

export function WebhooksPage() {
  const endpoints = useApi<WebhookEndpointList>(adminPath(ENDPOINTS));
  return (
    <div className="page" data-page="webhooks">
      <h1>Webhooks</h1>
      <QueryState query={endpoints} label="webhook endpoints">
        {(d) => (
          <>
            <EndpointTable endpoints={d.webhook_endpoints} />
            <CreateEndpointForm />
          </>
        )}
      </QueryState>
    </div>
  );
}

function EndpointTable({ endpoints }: { endpoints: WebhookEndpoint[] }) {
  const remove = useWrite(adminPath(ENDPOINTS), (id: string) => apiSend<WebhookEndpoint>('DELETE', `${adminPath(ENDPOINTS)}/${id}`));
  const columns: Column<WebhookEndpoint>[] = [
    { id: 'url', header: 'URL', value: (e) => e.url, render: (e) => <code>{e.url}</code> },
    { id: 'description', header: 'Description', value: (e) => e.description ?? '—' },
    { id: 'events', header: 'Events', value: (e) => e.enabled_events.join(' '), render: (e) => <code>{e.enabled_events.join(' ')}</code> },
    {
      id: 'status',
      header: 'Status',
      value: (e) => e.status,
      render: (e) =>
        e.status === 'enabled' ? (
          e.failing_since ? (
            <span className="badge break-even">failing since {dateTime(e.failing_since)}</span>
          ) : (
            'enabled'
          )
        ) : (
          <span className="badge unprofitable">disabled{e.disabled_reason ? `: ${e.disabled_reason}` : ''}</span>
        ),
    },
    { id: 'created', header: 'Created', value: (e) => e.created_at, render: (e) => dateTime(e.created_at) },
    {
      id: 'delete',
      header: '',
      value: () => null,
      render: (e) => (
        <ConfirmButton label="Delete" confirmLabel="Delete now" busy={remove.isPending} onConfirm={() => remove.mutate(e.id)} />
      ),
    },
  ];
  return (
    <section className="card">
      <h2>Endpoints</h2>
      <FormError error={remove.error} />
      <DataTable name="webhook-endpoints" columns={columns} rows={endpoints} rowTestId={(e) => e.url} empty="No webhook endpoints yet." />
    </section>
  );
}

function CreateEndpointForm() {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('*');
  const [description, setDescription] = useState('');
  const create = useWrite(
    adminPath(ENDPOINTS),
    () =>
      apiSend<WebhookEndpointWithSecret>('POST', adminPath(ENDPOINTS), {
        url: url.trim(),
        enabled_events: events
          .split(',')
          .map((e) => e.trim())
          .filter((e) => e !== ''),
        ...(description.trim() === '' ? {} : { description: description.trim() }),
      }),
    () => {
      setUrl('');
      setDescription('');
    },
  );
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <section className="card">
      <h2>New endpoint</h2>
      <form className="inline-form" onSubmit={submit} data-form="create-endpoint">
        <TextField label="URL" name="endpoint-url" value={url} onChange={setUrl} placeholder="https://hooks.example.com/marginal" />
        <TextField
          label="Events (comma-separated, * for all)"
          name="endpoint-events"
          value={events}
          onChange={setEvents}
          placeholder="budget.exceeded, credits.low"
        />
        <TextField label="Description" name="endpoint-description" value={description} onChange={setDescription} placeholder="optional" />
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add endpoint'}
        </button>
      </form>
      <FormError error={create.error} />
      {create.data && (
        <ShownOnce id={create.data.url} values={[['Signing secret', create.data.secret]]}>
          Copy the signing secret now: it is shown only this once. Check each delivery's Marginal-Signature header with it.
        </ShownOnce>
      )}
    </section>
  );
}
