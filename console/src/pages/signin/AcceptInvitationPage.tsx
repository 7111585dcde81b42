// An invitation's link (/#/accept-invitation?token=…, the token in the fragment so no server logs
// it): the person chooses a password (POST /v1/auth/invitations/accept), then is signed in with it.
// A person who already has an account types that account's password and gains the organization.
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { acceptInvitation, signIn } from '../../api/person-session.js';
import type { SessionView } from '../../api/types.js';
import { FormError } from '../../components/QueryState.js';

export function AcceptInvitationPage({ token, onSession }: { token: string; onSession: (session: SessionView) => void }) {
  const [password, setPassword] = useState('');
  const [repeated, setRepeated] = useState('');
  const accept = useMutation({
    mutationFn: async () => {
      const accepted = await acceptInvitation(token, password);
      return signIn(accepted.email, password);
    },
    onSuccess: onSession,
  });
  const mismatch = repeated !== '' && repeated !== password;
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    accept.mutate();
  };
  return (
    <div className="signin">
      <form className="signin-card" onSubmit={submit} data-form="accept-invitation">
        <h1>Join your organization</h1>
        <p>
          Choose a password of 12 to 256 characters. If you already have an account with this email, type its password: the organization is
          added to it.
        </p>
        <label>
          Password
          <input
            type="password"
            name="new-password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <label>
          Password again
          <input
            type="password"
            name="repeat-password"
            autoComplete="new-password"
            value={repeated}
            onChange={(e) => setRepeated(e.target.value)}
          />
        </label>
        {mismatch && <div className="note warning">The two passwords differ.</div>}
        <FormError error={accept.error} />
        <button type="submit" disabled={accept.isPending || password === '' || repeated !== password}>
          {accept.isPending ? 'Joining…' : 'Accept the invitation'}
        </button>
      </form>
    </div>
  );
}
