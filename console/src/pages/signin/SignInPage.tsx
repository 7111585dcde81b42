// Sign-in: the API key typed into a password field, checked with GET /v1/ping (any scope), then
// kept for this tab only. A wrong key says so.
import { useState } from 'react';
import { apiGet, ApiError } from '../../api/client.js';

export function SignInPage({ onSignedIn }: { onSignedIn: (key: string) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await apiGet<{ ok: boolean }>('/ping', {}, key.trim());
      onSignedIn(key.trim());
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? 'That API key was not accepted. Check it and try again (keys start with mk_live_).'
          : `Could not sign in: ${err instanceof Error ? err.message : String(err)}`,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="signin">
      <form onSubmit={submit} className="signin-card">
        <h1>Marginal</h1>
        <p>Sign in with an API key of your organization. It is kept for this browser tab only.</p>
        <label>
          API key
          <input
            type="password"
            name="api-key"
            autoComplete="off"
            value={key}
            onChange={(e) => setKey(e.target.value)}
            placeholder="mk_live_…"
            required
          />
        </label>
        {error && (
          <div className="note error" role="alert">
            {error}
          </div>
        )}
        <button type="submit" disabled={busy || key.trim() === ''}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
        <p className="muted">
          Pages need the read scopes <code>costs:read</code>, <code>revenue:read</code>, <code>usage:read</code> and{' '}
          <code>dimensions:read</code>; a page whose scope the key lacks says so. Create a key with <code>npm run cli -- keys create</code>.
        </p>
      </form>
    </div>
  );
}
