// People's storage in the control plane: persons, memberships, invitations, sessions and sign-in
// failures (core/control/migrations/015_people_sessions_audit.sql). Tokens arrive here hashed.
import type { Role } from '../core/auth/roles.js';
import type { Queryable } from '../core/control/db.js';

export interface PersonRow {
  id: string;
  email: string;
  password_hash: string;
}

export interface MembershipRow {
  organization_id: string;
  organization_name: string;
  person_id: string;
  email: string;
  role: Role;
  created_at: Date;
}

export interface InvitationRow {
  id: string;
  organization_id: string;
  email: string;
  role: Role;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

const INVITATION_COLUMNS = 'id, organization_id, email, role, expires_at, accepted_at, revoked_at, created_at';

export async function personByEmail(db: Queryable, email: string): Promise<PersonRow | null> {
  const rows = await db.query<PersonRow>('SELECT id, email, password_hash FROM people WHERE email = $1', [email]);
  return rows[0] ?? null;
}

export async function insertPerson(db: Queryable, email: string, passwordHash: string): Promise<PersonRow> {
  const rows = await db.query<PersonRow>('INSERT INTO people (email, password_hash) VALUES ($1, $2) RETURNING id, email, password_hash', [
    email,
    passwordHash,
  ]);
  return rows[0]!;
}

const MEMBERSHIP_SELECT = `SELECT m.organization_id, o.name AS organization_name, m.person_id, p.email, m.role, m.created_at
  FROM memberships m JOIN organizations o ON o.id = m.organization_id JOIN people p ON p.id = m.person_id`;

export function membershipsOfPerson(db: Queryable, personId: string): Promise<MembershipRow[]> {
  return db.query<MembershipRow>(`${MEMBERSHIP_SELECT} WHERE m.person_id = $1 ORDER BY o.name, m.organization_id`, [personId]);
}

export function membersOfOrganization(db: Queryable, organizationId: string): Promise<MembershipRow[]> {
  return db.query<MembershipRow>(`${MEMBERSHIP_SELECT} WHERE m.organization_id = $1 ORDER BY p.email`, [organizationId]);
}

export async function membership(db: Queryable, organizationId: string, personId: string): Promise<MembershipRow | null> {
  const rows = await db.query<MembershipRow>(`${MEMBERSHIP_SELECT} WHERE m.organization_id = $1 AND m.person_id = $2`, [
    organizationId,
    personId,
  ]);
  return rows[0] ?? null;
}

export async function insertMembership(db: Queryable, organizationId: string, personId: string, role: Role): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO memberships (organization_id, person_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id, person_id) DO NOTHING RETURNING person_id`,
    [organizationId, personId, role],
  );
  return rows.length === 1;
}

export async function updateRole(db: Queryable, organizationId: string, personId: string, role: Role): Promise<void> {
  await db.query('UPDATE memberships SET role = $3 WHERE organization_id = $1 AND person_id = $2', [organizationId, personId, role]);
}

/** Owners of the organization, counted under a row lock so two demotions cannot both pass. */
export async function lockedOwnerCount(db: Queryable, organizationId: string): Promise<number> {
  const rows = await db.query<{ person_id: string }>(
    "SELECT person_id FROM memberships WHERE organization_id = $1 AND role = 'owner' FOR UPDATE",
    [organizationId],
  );
  return rows.length;
}

export async function insertInvitation(
  db: Queryable,
  i: { organizationId: string; email: string; role: Role; tokenHash: string; expiresInHours: number },
): Promise<InvitationRow> {
  const rows = await db.query<InvitationRow>(
    `INSERT INTO invitations (organization_id, email, role, token_hash, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(hours => $5::int)) RETURNING ${INVITATION_COLUMNS}`,
    [i.organizationId, i.email, i.role, i.tokenHash, i.expiresInHours],
  );
  return rows[0]!;
}

/** The invitation with its expiry judged by the database's clock, locked until the transaction ends. */
export async function lockedInvitation(db: Queryable, tokenHash: string): Promise<(InvitationRow & { expired: boolean }) | null> {
  const rows = await db.query<InvitationRow & { expired: boolean }>(
    `SELECT ${INVITATION_COLUMNS}, expires_at <= now() AS expired FROM invitations WHERE token_hash = $1 FOR UPDATE`,
    [tokenHash],
  );
  return rows[0] ?? null;
}

/** The organization's invitations still open (neither accepted, revoked nor expired), newest first. */
export function openInvitations(db: Queryable, organizationId: string): Promise<InvitationRow[]> {
  return db.query<InvitationRow>(
    `SELECT ${INVITATION_COLUMNS} FROM invitations
      WHERE organization_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
      ORDER BY created_at DESC, id`,
    [organizationId],
  );
}

/** Revokes an open invitation of the organization; returns it, or null when there is none open by that id. */
export async function revokeInvitation(db: Queryable, organizationId: string, invitationId: string): Promise<InvitationRow | null> {
  const rows = await db.query<InvitationRow>(
    `UPDATE invitations SET revoked_at = now()
      WHERE organization_id = $1 AND id = $2 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
      RETURNING ${INVITATION_COLUMNS}`,
    [organizationId, invitationId],
  );
  return rows[0] ?? null;
}

export async function deleteMembership(db: Queryable, organizationId: string, personId: string): Promise<void> {
  await db.query('DELETE FROM memberships WHERE organization_id = $1 AND person_id = $2', [organizationId, personId]);
}

export async function markInvitationAccepted(db: Queryable, invitationId: string, personId: string): Promise<void> {
  await db.query('UPDATE invitations SET accepted_at = now(), accepted_by = $2 WHERE id = $1 AND accepted_at IS NULL', [
    invitationId,
    personId,
  ]);
}

export async function insertSession(
  db: Queryable,
  s: { personId: string; tokenHash: string; address: string | null; lifetimeHours: number },
): Promise<{ id: string; expires_at: Date }> {
  const rows = await db.query<{ id: string; expires_at: Date }>(
    `INSERT INTO person_sessions (person_id, token_hash, address, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(hours => $4::int)) RETURNING id, expires_at`,
    [s.personId, s.tokenHash, s.address, s.lifetimeHours],
  );
  return rows[0]!;
}

/**
 * The live session of a token hash, with the person's memberships: one statement per request.
 * A session idle for `idleHours` is dead too.
 */
export async function liveSession(
  db: Queryable,
  tokenHash: string,
  idleHours: number,
): Promise<{ id: string; person_id: string; stale: boolean; memberships: { organization_id: string; role: string }[] } | null> {
  const rows = await db.query<{ id: string; person_id: string; stale: boolean; memberships: { organization_id: string; role: string }[] }>(
    `SELECT s.id, s.person_id, s.last_seen_at < now() - interval '5 minutes' AS stale,
            COALESCE((SELECT json_agg(json_build_object('organization_id', m.organization_id, 'role', m.role))
                        FROM memberships m WHERE m.person_id = s.person_id), '[]'::json) AS memberships
       FROM person_sessions s
      WHERE s.token_hash = $1 AND s.expires_at > now() AND s.last_seen_at > now() - make_interval(hours => $2::int)`,
    [tokenHash, idleHours],
  );
  return rows[0] ?? null;
}

export async function touchSession(db: Queryable, sessionId: string): Promise<void> {
  await db.query('UPDATE person_sessions SET last_seen_at = now() WHERE id = $1', [sessionId]);
}

export async function deleteSessionByHash(db: Queryable, tokenHash: string): Promise<void> {
  await db.query('DELETE FROM person_sessions WHERE token_hash = $1', [tokenHash]);
}

export async function deleteSession(db: Queryable, sessionId: string): Promise<number> {
  const rows = await db.query('DELETE FROM person_sessions WHERE id = $1 RETURNING id', [sessionId]);
  return rows.length;
}

export async function deleteSessionsOfPerson(db: Queryable, personId: string): Promise<number> {
  const rows = await db.query('DELETE FROM person_sessions WHERE person_id = $1 RETURNING id', [personId]);
  return rows.length;
}

/** The latest lock among `subjects` still running, in whole seconds left (0: none). */
export async function lockedForSeconds(db: Queryable, subjects: string[]): Promise<number> {
  const rows = await db.query<{ seconds: string | null }>(
    `SELECT ceil(extract(epoch FROM max(locked_until) - now()))::text AS seconds
       FROM sign_in_failures WHERE subject = ANY($1::text[]) AND locked_until > now()`,
    [subjects],
  );
  return Number(rows[0]?.seconds ?? 0);
}

/** Counts one failure (restarting after `memorySeconds` without one); returns the count now. */
export async function countFailure(db: Queryable, subject: string, memorySeconds: number): Promise<number> {
  const rows = await db.query<{ failures: number }>(
    `INSERT INTO sign_in_failures (subject, failures, last_failure_at) VALUES ($1, 1, now())
     ON CONFLICT (subject) DO UPDATE SET
       failures = CASE WHEN sign_in_failures.last_failure_at < now() - make_interval(secs => $2::int) THEN 1
                       ELSE sign_in_failures.failures + 1 END,
       last_failure_at = now()
     RETURNING failures`,
    [subject, memorySeconds],
  );
  return rows[0]!.failures;
}

/** Forgets failures nobody has repeated for a day (unknown emails included), so the table stays small. */
export async function forgetOldFailures(db: Queryable): Promise<void> {
  await db.query(
    "DELETE FROM sign_in_failures WHERE last_failure_at < now() - interval '1 day' AND (locked_until IS NULL OR locked_until < now())",
  );
}

/** Drops the person's sessions that ended by age or idleness (signed-out ones are already gone). */
export async function deleteDeadSessions(db: Queryable, personId: string, idleHours: number): Promise<void> {
  await db.query(
    'DELETE FROM person_sessions WHERE person_id = $1 AND (expires_at <= now() OR last_seen_at <= now() - make_interval(hours => $2::int))',
    [personId, idleHours],
  );
}

export async function lockSubject(db: Queryable, subject: string, seconds: number): Promise<void> {
  await db.query('UPDATE sign_in_failures SET locked_until = now() + make_interval(secs => $2::int) WHERE subject = $1', [
    subject,
    seconds,
  ]);
}

export async function forgetFailures(db: Queryable, subject: string): Promise<void> {
  await db.query('DELETE FROM sign_in_failures WHERE subject = $1', [subject]);
}

export async function personEmail(db: Queryable, personId: string): Promise<string> {
  const rows = await db.query<{ email: string }>('SELECT email FROM people WHERE id = $1', [personId]);
  return rows[0]?.email ?? '';
}
