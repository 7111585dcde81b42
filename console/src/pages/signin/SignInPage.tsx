// Sign-in, three ways: a person's email and password (POST /v1/auth/sign-in, a cookie session; a
// forgotten one asks for a reset link), the person's organization's single sign-on (its provider,
// found by the email's domain), or an API key for the read pages (checked with GET /v1/ping, kept
// for this tab only). Refusals show the API's own message (wrong password, locked for a while, no
// SSO for that domain).
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { apiGet, ApiError } from '../../api/client.js';
import { requestPasswordReset, signIn, ssoStartUrl } from '../../api/person-session.js';
import type { SessionView } from '../../api/types.js';
import { FormError } from '../../components/QueryState.js';
import { TextField } from '../../components/TextField.js';

export function SignInPage(props: { onSession: (session: SessionView) => void; onApiKey: (key: string) => void }) {
  return (
    <div className="signin">
      <div className="signin-card">
        <h1>Marginal</h1>
        <PersonSignIn onSession={props.onSession} />
        <ApiKeySignIn onApiKey={props.onApiKey} />
      </div>
    </div>
  );
}

function PersonSignIn({ onSession }: { onSession: (session: SessionView) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const passwordSignIn = useMutation({ mutationFn: () => signIn(email.trim(), password), onSuccess: onSession });
  const sso = useMutation({
    mutationFn: () => ssoStartUrl(email.trim()),
    onSuccess: (url) => window.location.assign(url),
  });
  const reset = useMutation({ mutationFn: () => requestPasswordReset(email.trim()) });
  const busy = passwordSignIn.isPending || sso.isPending || reset.isPending;
  const error = passwordSignIn.error ?? sso.error ?? reset.error;
  /** One way at a time: starting one clears what the others said. */
  const only = (way: typeof passwordSignIn | typeof sso | typeof reset) => {
    for (const other of [passwordSignIn, sso, reset]) if (other !== way) other.reset();
    way.mutate();
  };
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    only(passwordSignIn);
  };
  return (
    <form onSubmit={submit} data-form="person">
      <p>Sign in with your work email.</p>
      <TextField label="Email" type="email" name="email" autoComplete="username" value={email} onChange={setEmail} required />
      <TextField label="Password" type="password" name="password" autoComplete="current-password" value={password} onChange={setPassword} />
      <FormError error={error} />
      {reset.isSuccess && (
        <div className="note" role="status" data-reset-requested>
          If {email.trim()} has an account, a link to choose a new password is on its way. It works once, for 30 minutes.
        </div>
      )}
      <div className="signin-actions">
        <button type="submit" disabled={busy || email.trim() === '' || password === ''}>
          {passwordSignIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        <button type="button" data-action="sso" disabled={busy || email.trim() === ''} onClick={() => only(sso)}>
          Sign in with SSO
        </button>
        <button type="button" className="link" data-action="forgot" disabled={busy || email.trim() === ''} onClick={() => only(reset)}>
          Forgot your password?
        </button>
      </div>
      <p className="muted">Single sign-on takes you to your organization's identity provider; only the email is needed.</p>
    </form>
  );
}

function ApiKeySignIn({ onApiKey }: { onApiKey: (key: string) => void }) {
  const [key, setKey] = useState('');
  const check = useMutation({
    mutationFn: async (typed: string) => {
      await apiGet<{ ok: boolean }>('/ping', {}, { kind: 'api_key', key: typed });
      return typed;
    },
    onSuccess: onApiKey,
  });
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    check.mutate(key.trim());
  };
  return (
    <form onSubmit={submit} data-form="api-key" className="signin-alt">
      <h2>Or with an API key</h2>
      <p className="muted">For the read pages only. The key is kept for this browser tab only.</p>
      <TextField
        label="API key"
        type="password"
        name="api-key"
        autoComplete="off"
        value={key}
        onChange={setKey}
        placeholder="mk_live_…"
        required
      />
      {check.error instanceof ApiError && check.error.status === 401 ? (
        <div className="note error" role="alert">
          That API key was not accepted. Check it and try again (keys start with mk_live_).
        </div>
      ) : (
        <FormError error={check.error} />
      )}
      <button type="submit" disabled={check.isPending || key.trim() === ''}>
        {check.isPending ? 'Checking…' : 'Sign in with the key'}
      </button>
      <p className="muted">
        Pages need the read scopes <code>costs:read</code>, <code>revenue:read</code>, <code>usage:read</code> and{' '}
        <code>dimensions:read</code>; a page whose scope the key lacks says so. Create a key with <code>npm run cli -- keys create</code>.
      </p>
    </form>
  );
}
