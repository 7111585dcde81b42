// Invitations of the organization, for its owners and admins: invite a colleague (the link shown
// once, as the API answers it only once) and the open invitations (neither accepted, revoked nor
// expired; never their tokens), each revoked in place. The roles offered follow people/'s rules;
// the server judges each again.
import { useState } from 'react';
import { ROLES, type Role } from '../../../../core/auth/roles.js';
import { judgeRoleChange } from '../../../../people/member-rules.js';
import { apiSend } from '../../api/client.js';
import { useApi, useWrite } from '../../api/queries.js';
import type { InvitationView, OpenInvitation, OpenInvitationList } from '../../api/types.js';
import { ConfirmButton } from '../../components/ConfirmButton.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { FormError, QueryState } from '../../components/QueryState.js';
import { ShownOnce } from '../../components/ShownOnce.js';
import { TextField } from '../../components/TextField.js';
import { dateTime } from '../../format/dates.js';
import { actorRole, ROLE_NOTES } from './member-roles.js';

const OPEN = '/members/invitations';

export function InvitationsSection({ owners }: { owners: number }) {
  return (
    <>
      <InviteForm owners={owners} />
      <OpenInvitations owners={owners} />
    </>
  );
}

function OpenInvitations({ owners }: { owners: number }) {
  const actor = actorRole();
  const open = useApi<OpenInvitationList>(OPEN);
  const revoke = useWrite(OPEN, (id: string) => apiSend<OpenInvitation>('DELETE', `${OPEN}/${id}`));
  const columns: Column<OpenInvitation>[] = [
    { id: 'email', header: 'Email', value: (i) => i.email },
    { id: 'role', header: 'Role', value: (i) => i.role },
    { id: 'created', header: 'Invited', value: (i) => i.created_at, render: (i) => dateTime(i.created_at) },
    { id: 'expires', header: 'Expires', value: (i) => i.expires_at, render: (i) => dateTime(i.expires_at) },
    {
      id: 'revoke',
      header: '',
      value: () => null,
      render: (i) =>
        actor && judgeRoleChange(actor, null, i.role, owners).allowed ? (
          <ConfirmButton
            label="Revoke"
            confirmLabel="Revoke: the link stops working"
            busy={revoke.isPending}
            onConfirm={() => revoke.mutate(i.invitation_id)}
          />
        ) : null,
    },
  ];
  return (
    <section className="card">
      <h2>Open invitations</h2>
      <FormError error={revoke.error} />
      <QueryState query={open} label="invitations">
        {(d) => (
          <DataTable name="invitations" columns={columns} rows={d.invitations} rowTestId={(i) => i.email} empty="No open invitations." />
        )}
      </QueryState>
    </section>
  );
}

function InviteForm({ owners }: { owners: number }) {
  const actor = actorRole();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [hours, setHours] = useState('');
  const invite = useWrite(
    OPEN,
    () =>
      apiSend<InvitationView>('POST', OPEN, {
        email: email.trim(),
        role,
        // Anything but digits goes as typed, so the API's own message names the field.
        ...(hours.trim() === '' ? {} : { expires_in_hours: /^\d+$/.test(hours.trim()) ? Number(hours) : hours }),
      }),
    () => setEmail(''),
  );
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    invite.mutate();
  };
  return (
    <section className="card">
      <h2>Invite a colleague</h2>
      <form className="inline-form" onSubmit={submit} data-form="invite">
        <TextField label="Email" type="email" name="invite-email" value={email} onChange={setEmail} required />
        <label>
          Role
          <select name="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r} disabled={!actor || !judgeRoleChange(actor, null, r, owners).allowed}>
                {r} ({ROLE_NOTES[r]})
              </option>
            ))}
          </select>
        </label>
        <TextField label="Expires in hours" name="invite-hours" inputMode="numeric" placeholder="168" value={hours} onChange={setHours} />
        <button type="submit" disabled={invite.isPending || email.trim() === ''}>
          {invite.isPending ? 'Inviting…' : 'Invite'}
        </button>
      </form>
      <FormError error={invite.error} />
      {invite.data && (
        <ShownOnce id={invite.data.email} values={[['Invitation link', invite.data.url]]}>
          Send this link to <b>{invite.data.email}</b> ({invite.data.role}). It is shown only now, works once, and expires{' '}
          {dateTime(invite.data.expires_at)}.
        </ShownOnce>
      )}
    </section>
  );
}
