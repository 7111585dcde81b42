// Members of the organization, for its owners and admins: the people and their roles (a role
// changed in place, a member removed), invitations (InvitationsSection.tsx) and single sign-on
// (SsoSection.tsx). The choices offered follow people/'s rules against escalation; the server
// judges every change again, and its refusal (the envelope's message, naming the field) is shown
// as it comes.
import { ROLES, type Role } from '../../../../core/auth/roles.js';
import { judgeRemoval, judgeRoleChange } from '../../../../people/member-rules.js';
import { apiSend } from '../../api/client.js';
import { useApi, useWrite } from '../../api/queries.js';
import type { MemberList, MemberView } from '../../api/types.js';
import { ConfirmButton } from '../../components/ConfirmButton.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { FormError, QueryState } from '../../components/QueryState.js';
import { dateTime } from '../../format/dates.js';
import { InvitationsSection } from './InvitationsSection.js';
import { actorRole, ROLE_NOTES } from './member-roles.js';
import { SsoSection } from './SsoSection.js';

export function MembersPage() {
  const members = useApi<MemberList>('/members');
  return (
    <div className="page" data-page="members">
      <h1>Members</h1>
      <QueryState query={members} label="members">
        {(d) => (
          <>
            <MemberTable members={d.members} />
            <InvitationsSection owners={d.members.filter((m) => m.role === 'owner').length} />
            <SsoSection />
          </>
        )}
      </QueryState>
    </div>
  );
}

function MemberTable({ members }: { members: MemberView[] }) {
  const actor = actorRole();
  const owners = members.filter((m) => m.role === 'owner').length;
  const change = useWrite('/members', ({ personId, role }: { personId: string; role: Role }) =>
    apiSend<MemberView>('PATCH', `/members/${personId}`, { role }),
  );
  const remove = useWrite('/members', (personId: string) => apiSend<void>('DELETE', `/members/${personId}`));
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
    {
      id: 'remove',
      header: '',
      value: () => null,
      render: (m) =>
        actor && judgeRemoval(actor, m.role, owners).allowed ? (
          <ConfirmButton
            label="Remove"
            confirmLabel="Remove from the organization now"
            busy={remove.isPending}
            onConfirm={() => remove.mutate(m.person_id)}
          />
        ) : null,
    },
  ];
  return (
    <section className="card">
      <h2>People</h2>
      <FormError error={change.error ?? remove.error} />
      <DataTable name="members" filter columns={columns} rows={members} rowTestId={(m) => m.email} empty="No members." />
    </section>
  );
}
