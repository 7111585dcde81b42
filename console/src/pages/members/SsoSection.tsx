// The organization's single sign-on, for its owners and admins (GET/PUT /v1/members/sso): what is
// set (never the client secret, which the API does not answer) with the redirect URI to register at
// the provider, and a form to set it. The secret is asked on every save, as the API requires it.
import { useState } from 'react';
import { ROLES, type Role } from '../../../../core/auth/roles.js';
import { ApiError, apiSend } from '../../api/client.js';
import { useApi, useWrite } from '../../api/queries.js';
import type { SsoConfiguration } from '../../api/types.js';
import { ErrorNote, FormError } from '../../components/QueryState.js';
import { dateTime } from '../../format/dates.js';
import { TextField } from '../../components/TextField.js';

export function SsoSection() {
  const current = useApi<SsoConfiguration>('/members/sso');
  const missing = current.error instanceof ApiError && current.error.status === 404;
  return (
    <section className="card" data-section="sso">
      <h2>Single sign-on</h2>
      {current.isPending ? (
        <div className="loading" aria-busy="true">
          Loading single sign-on…
        </div>
      ) : current.isError && !missing ? (
        <ErrorNote error={current.error} />
      ) : (
        <>
          {current.data ? (
            <dl className="facts" data-sso-configured>
              <dt>Provider (issuer)</dt>
              <dd>{current.data.issuer}</dd>
              <dt>Client id</dt>
              <dd>{current.data.client_id}</dd>
              <dt>Email domains</dt>
              <dd>{current.data.allowed_domains.join(', ')}</dd>
              <dt>Role of new people</dt>
              <dd>{current.data.default_role}</dd>
              <dt>Redirect URI to register</dt>
              <dd>
                <code>{current.data.redirect_uri}</code>
              </dd>
              <dt>Sign-in link</dt>
              <dd>
                <code>{current.data.sign_in_url}</code>
              </dd>
              <dt>Last changed</dt>
              <dd>{dateTime(current.data.updated_at)}</dd>
            </dl>
          ) : (
            <p className="muted" data-sso-missing>
              Not set: people sign in with a password only.
            </p>
          )}
          <SsoForm current={current.data ?? null} />
        </>
      )}
    </section>
  );
}

function SsoForm({ current }: { current: SsoConfiguration | null }) {
  const [issuer, setIssuer] = useState(current?.issuer ?? '');
  const [clientId, setClientId] = useState(current?.client_id ?? '');
  const [secret, setSecret] = useState('');
  const [domains, setDomains] = useState(current?.allowed_domains.join(', ') ?? '');
  const [role, setRole] = useState<Role>(current?.default_role ?? 'viewer');
  const save = useWrite(
    '/members/sso',
    () =>
      apiSend<SsoConfiguration>('PUT', '/members/sso', {
        issuer: issuer.trim(),
        client_id: clientId.trim(),
        client_secret: secret,
        allowed_domains: domains
          .split(',')
          .map((d) => d.trim())
          .filter((d) => d !== ''),
        default_role: role,
      }),
    () => {
      setSecret('');
    },
  );
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <>
      <form className="inline-form" onSubmit={submit} data-form="sso">
        <TextField label="Issuer URL" name="sso-issuer" value={issuer} onChange={setIssuer} placeholder="https://idp.example.com" />
        <TextField label="Client id" name="sso-client-id" value={clientId} onChange={setClientId} />
        <TextField
          label="Client secret"
          name="sso-client-secret"
          type="password"
          autoComplete="off"
          value={secret}
          onChange={setSecret}
          placeholder={current ? 'type it again to save' : ''}
        />
        <TextField
          label="Email domains (comma-separated)"
          name="sso-domains"
          value={domains}
          onChange={setDomains}
          placeholder="acme.com"
        />
        <label>
          Role of new people
          <select name="sso-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : current ? 'Save single sign-on' : 'Set up single sign-on'}
        </button>
      </form>
      <FormError error={save.error} />
    </>
  );
}
