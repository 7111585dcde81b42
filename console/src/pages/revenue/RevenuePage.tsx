// The organization's revenue connections, for its owners and admins, through the admin routes their
// session may call (/v1/admin/organizations/{organizationId}/revenue-connections): the imported
// records' connection and Stripe's (never its key, only a hint), its last sync with counts and any
// error; connect Stripe (the key typed, checked by the API with Stripe), sync now, disconnect
// (asked twice). Refusals show the API's message, naming the field.
import { useState } from 'react';
import { adminPath, apiSend } from '../../api/client.js';
import { useApi, useWrite } from '../../api/queries.js';
import type { RevenueConnection, RevenueConnectionList, UnmatchedCustomers } from '../../api/types.js';
import { ConfirmButton } from '../../components/ConfirmButton.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { FormError, QueryState } from '../../components/QueryState.js';
import { TextField } from '../../components/TextField.js';
import { dateTime } from '../../format/dates.js';
import { count } from '../../format/money.js';

const CONNECTIONS = 'revenue-connections';
const STRIPE = `${CONNECTIONS}/stripe`;

const columns: Column<RevenueConnection>[] = [
  { id: 'kind', header: 'Source', value: (c) => (c.kind === 'stripe' ? 'Stripe' : 'imported records') },
  { id: 'status', header: 'Status', value: (c) => c.status },
  {
    id: 'account',
    header: 'Account',
    value: (c) => (c.stripe ? `${c.stripe.key_hint}${c.stripe.livemode ? '' : ' (test mode)'}` : null),
  },
  { id: 'synced', header: 'Last synced', value: (c) => c.last_synced_at, render: (c) => dateTime(c.last_synced_at) },
  {
    id: 'sync',
    header: 'Last sync',
    value: (c) => c.last_sync?.state ?? null,
    render: (c) =>
      c.last_sync
        ? `${c.last_sync.state}: ${count(c.last_sync.records_written)} records from ${count(c.last_sync.invoices)} invoices${c.last_sync.error ? ` (${c.last_sync.error})` : ''}`
        : '—',
  },
];

export function RevenuePage() {
  const connections = useApi<RevenueConnectionList>(adminPath(CONNECTIONS), {}, true, (d) =>
    d?.connections.some((c) => c.last_sync?.state === 'running') ? 2000 : false,
  );
  return (
    <div className="page" data-page="revenue">
      <h1>Revenue connection</h1>
      <QueryState query={connections} label="revenue connections">
        {(d) => (
          <>
            <section className="card">
              <DataTable
                name="revenue-connections"
                columns={columns}
                rows={d.connections}
                rowTestId={(c) => c.kind}
                empty="No revenue source yet: import revenue records or connect Stripe."
              />
            </section>
            <StripeSection connected={d.connections.some((c) => c.kind === 'stripe' && c.status === 'active')} />
          </>
        )}
      </QueryState>
    </div>
  );
}

function StripeSection({ connected }: { connected: boolean }) {
  const [key, setKey] = useState('');
  const [metadataKey, setMetadataKey] = useState('');
  const [unmatched, setUnmatched] = useState<UnmatchedCustomers>('customer_id');
  const connect = useWrite(
    adminPath(CONNECTIONS),
    () =>
      apiSend<RevenueConnection>('POST', adminPath(STRIPE), {
        secret_key: key.trim(),
        ...(metadataKey.trim() === '' ? {} : { customer_metadata_key: metadataKey.trim() }),
        unmatched_customers: unmatched,
      }),
    () => setKey(''),
  );
  const sync = useWrite(adminPath(CONNECTIONS), () => apiSend<unknown>('POST', `${adminPath(STRIPE)}/sync`));
  const disconnect = useWrite(adminPath(CONNECTIONS), () => apiSend<RevenueConnection>('DELETE', adminPath(STRIPE)));
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    connect.mutate();
  };
  return (
    <section className="card" data-section="stripe">
      <h2>Stripe</h2>
      {connected && (
        <div className="inline-form">
          <button type="button" disabled={sync.isPending} onClick={() => sync.mutate()}>
            Sync now
          </button>
          <ConfirmButton
            label="Disconnect"
            confirmLabel="Disconnect: Stripe's records stop counting as revenue"
            busy={disconnect.isPending}
            onConfirm={() => disconnect.mutate()}
          />
        </div>
      )}
      <FormError error={sync.error ?? disconnect.error} />
      <form className="inline-form" onSubmit={submit} data-form="connect-stripe">
        <TextField
          label={connected ? 'New secret key (replaces the key)' : 'Secret key'}
          type="password"
          name="stripe-key"
          autoComplete="off"
          value={key}
          onChange={setKey}
          placeholder="rk_live_… (read access to customers, invoices, credit notes)"
        />
        <TextField
          label="Customer metadata key"
          name="stripe-metadata-key"
          value={metadataKey}
          onChange={setMetadataKey}
          placeholder="user_id"
        />
        <label>
          Customers without it
          <select name="stripe-unmatched" value={unmatched} onChange={(e) => setUnmatched(e.target.value as UnmatchedCustomers)}>
            <option value="customer_id">count under the Stripe customer id</option>
            <option value="unattributed">leave unattributed</option>
          </select>
        </label>
        <button type="submit" disabled={connect.isPending || key.trim() === ''}>
          {connect.isPending ? 'Checking with Stripe…' : connected ? 'Replace the key' : 'Connect Stripe'}
        </button>
      </form>
      <FormError error={connect.error} />
    </section>
  );
}
