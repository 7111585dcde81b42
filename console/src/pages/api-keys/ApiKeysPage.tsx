// The organization's API keys, for its owners and admins, through the admin routes their session
// may call (/v1/admin/organizations/{organizationId}/api-keys): the keys without secrets, a new key
// whose key and signing secret are shown once (the API answers them only once), a revocation
// confirmed in place. Refusals show the API's message, naming the field.
import { useState } from 'react';
import { SCOPES, type Scope } from '../../../../core/auth/scopes.js';
import { adminPath, apiSend } from '../../api/client.js';
import { useApi, useWrite } from '../../api/queries.js';
import type { ApiKey, ApiKeyList, IssuedApiKey } from '../../api/types.js';
import { ConfirmButton } from '../../components/ConfirmButton.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { FormError, QueryState } from '../../components/QueryState.js';
import { ShownOnce } from '../../components/ShownOnce.js';
import { dateTime } from '../../format/dates.js';

const SCOPE_NOTES: Record<Scope, string> = {
  'usage:write': 'send usage events (with the signing secret)',
  'usage:read': 'read events and usage',
  'costs:read': 'read costs',
  'revenue:read': 'read revenue and margins',
  'dimensions:read': 'read dimensions',
};

const KEYS = 'api-keys';

export function ApiKeysPage() {
  const keys = useApi<ApiKeyList>(adminPath(KEYS));
  return (
    <div className="page" data-page="api-keys">
      <h1>API keys</h1>
      <QueryState query={keys} label="API keys">
        {(d) => (
          <>
            <KeyTable keys={d.api_keys} />
            <CreateKeyForm />
          </>
        )}
      </QueryState>
    </div>
  );
}

function KeyTable({ keys }: { keys: ApiKey[] }) {
  const revoke = useWrite(adminPath(KEYS), (keyId: string) => apiSend<ApiKey>('DELETE', `${adminPath(KEYS)}/${keyId}`));
  const columns: Column<ApiKey>[] = [
    { id: 'prefix', header: 'Key', value: (k) => k.key_prefix, render: (k) => <code>{k.key_prefix}…</code> },
    { id: 'scopes', header: 'Scopes', value: (k) => k.scopes.join(' '), render: (k) => <code>{k.scopes.join(' ')}</code> },
    { id: 'created', header: 'Created', value: (k) => k.created_at, render: (k) => dateTime(k.created_at) },
    {
      id: 'status',
      header: 'Status',
      value: (k) => (k.revoked_at ? `revoked ${k.revoked_at}` : 'active'),
      render: (k) =>
        k.revoked_at ? (
          <span className="muted">revoked {dateTime(k.revoked_at)}</span>
        ) : (
          <ConfirmButton
            label="Revoke"
            confirmLabel="Revoke now: it stops working at once"
            busy={revoke.isPending}
            onConfirm={() => revoke.mutate(k.key_id)}
          />
        ),
    },
  ];
  return (
    <section className="card">
      <h2>Keys</h2>
      <FormError error={revoke.error} />
      <DataTable name="api-keys" columns={columns} rows={keys} rowTestId={(k) => k.key_prefix} empty="No API keys yet." />
    </section>
  );
}

function CreateKeyForm() {
  const [scopes, setScopes] = useState<Scope[]>([]);
  const create = useWrite(
    adminPath(KEYS),
    () => apiSend<IssuedApiKey>('POST', adminPath(KEYS), { scopes }),
    () => setScopes([]),
  );
  const toggle = (scope: Scope, on: boolean) => setScopes(on ? [...scopes, scope] : scopes.filter((s) => s !== scope));
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <section className="card">
      <h2>Create a key</h2>
      <form className="inline-form" onSubmit={submit} data-form="create-key">
        <fieldset className="scopes">
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label key={scope} className="check">
              <input type="checkbox" name={scope} checked={scopes.includes(scope)} onChange={(e) => toggle(scope, e.target.checked)} />
              <code>{scope}</code> <span className="muted">{SCOPE_NOTES[scope]}</span>
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create key'}
        </button>
      </form>
      <FormError error={create.error} />
      {create.data && (
        <ShownOnce
          id={create.data.key_prefix}
          values={[
            ['API key', create.data.api_key],
            ...(create.data.scopes.includes('usage:write') ? [['Signing secret', create.data.signing_secret] as const] : []),
          ]}
        >
          {create.data.scopes.includes('usage:write')
            ? 'Copy the key and its signing secret now: they are shown only this once.'
            : 'Copy the key now: it is shown only this once.'}
        </ShownOnce>
      )}
    </section>
  );
}
