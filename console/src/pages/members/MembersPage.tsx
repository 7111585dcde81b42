// Members of the organization, for its owners and admins: the people and their roles (a role
// changed in place), invitations (the link shown once, as the API answers it only once), and
// single sign-on (SsoSection.tsx). The roles offered follow people/'s escalation rule; the server
// judges every change again, and its refusal (the envelope's message, naming the field) is shown
// as it comes.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ROLES, type Role } from '../../../../core/auth/roles.js';
import { judgeRoleChange } from '../../../../people/member-rules.js';
import { apiSend, currentCredential } from '../../api/client.js';
import { useApi } from '../../api/queries.js';
import type { InvitationView, MemberList, MemberView } from '../../api/types.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { FormError, QueryState } from '../../components/QueryState.js';
import { ShownOnce } from '../../components/ShownOnce.js';
import { dateTime } from '../../format/dates.js';
import { SsoSection } from './SsoSection.js';
import { TextField } from '../../components/TextField.js';

const ROLE_NOTES: Record<Role, string> = {
  owner: 'everything, and manages members',
  admin: 'everything, and manages members below owner',
  analyst: 'every read',
  finance: 'cost, revenue and margin reads',
  viewer: 'cost reads',
};

function actorRole(): Role | null {
  const credential = currentCredential();
  return credential?.kind === 'session' ? credential.role : null;
}

export function MembersPage() {
  const members = useApi<MemberList>('/members');
  return (
    <div className="page" data-page="members">
      <h1>Members</h1>
      <QueryState query={members} label="members">
        {(d) => (
          <>
            <MemberTable members={d.members} />
            <InviteForm owners={d.members.filter((m) => m.role === 'owner').length} />
            <SsoSection />
          </>
        )}
      </QueryState>
    </div>
  );
}

function MemberTable({ members }: { members: MemberView[] }) {
  const queryClient = useQueryClient();
  const actor = actorRole();
  const owners = members.filter((m) => m.role === 'owner').length;
  const change = useMutation({
    mutationFn: ({ personId, role }: { personId: string; role: Role }) => apiSend<MemberView>('PATCH', `/members/${personId}`, { role }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['/members'] }),
  });
  const columns: Column<MemberView>[] = [
    { id: 'email', header: 'Email', value: (m) => m.email },
    {
      id: 'role',
      header: 'Role',
      value: (m) => m.role,
      render: (m) => (
        <select
          aria-label={`Role of ${m.email}`}
          value={m.role}
          disabled={change.isPending}
          onChange={(e) => change.mutate({ personId: m.person_id, role: e.target.value as Role })}
        >
          {ROLES.map((r) => (
            <option key={r} value={r} disabled={r !== m.role && (!actor || !judgeRoleChange(actor, m.role, r, owners).allowed)}>
              {r}
            </option>
          ))}
        </select>
      ),
    },
    { id: 'may', header: 'May', value: (m) => ROLE_NOTES[m.role] },
    { id: 'member_since', header: 'Member since', value: (m) => m.member_since, render: (m) => dateTime(m.member_since) },
  ];
  return (
    <section className="card">
      <h2>People</h2>
      <FormError error={change.error} />
      <DataTable name="members" filter columns={columns} rows={members} rowTestId={(m) => m.email} empty="No members." />
      <p className="muted">
        Removing a member and listing or revoking pending invitations have no API yet; an invitation expires by itself (a week by default).
      </p>
    </section>
  );
}

function InviteForm({ owners }: { owners: number }) {
  const actor = actorRole();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [hours, setHours] = useState('');
  const invite = useMutation({
    mutationFn: () =>
      apiSend<InvitationView>('POST', '/members/invitations', {
        email: email.trim(),
        role,
        // Anything but digits goes as typed, so the API's own message names the field.
        ...(hours.trim() === '' ? {} : { expires_in_hours: /^\d+$/.test(hours.trim()) ? Number(hours) : hours }),
      }),
    onSuccess: () => setEmail(''),
  });
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
