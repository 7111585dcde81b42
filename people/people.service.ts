// People: invitations, accepting them, sign-in and sign-out, role changes, and resolving a
// session for the one authentication module (PersonSessions). Every step worth auditing writes
// its audit row here, beside the change it records. Passwords are hashed outside transactions
// (argon2 takes ~100 ms of CPU); tokens are stored only as their SHA-256.
import type { PersonSessions, ResolvedSession } from '../core/auth/person-sessions.js';
import type { Role } from '../core/auth/roles.js';
import type { ControlDb } from '../core/control/db.js';
import { AccessDeniedError, AppError, NotFoundError, ValidationError } from '../core/errors.js';
import type { Actor } from '../core/http/audit-trail.js';
import { recordAudit } from './audit.store.js';
import { ACCOUNT_LOCKOUT, ADDRESS_LOCKOUT, FAILURE_MEMORY_SECONDS, lockSeconds, type LockoutPolicy } from './lockout.js';
import { judgeRemoval, judgeRoleChange } from './member-rules.js';
import { checkNewPassword, hashPassword, passwordMatches, UNKNOWN_ACCOUNT_HASH } from './passwords.js';
import { SignInFailedError, SignInLockedError } from './people-errors.js';
import * as store from './people.store.js';
import { csrfTokenOf, hashToken, newToken } from './people-tokens.js';

export const INVITATION_DEFAULT_HOURS = 7 * 24;
/** A session lives at most a week, and dies after a day without a request. */
const SESSION_LIFETIME_HOURS = 7 * 24;
const SESSION_IDLE_HOURS = 24;

export interface IssuedInvitation extends store.InvitationRow {
  token: string;
}

/** Invites `email` to the organization with `role`; `actorRole` is set when a person (not the admin token) invites. */
export async function invite(
  db: ControlDb,
  actor: Actor & { role?: Role },
  i: { organizationId: string; email: string; role: Role; expiresInHours: number },
): Promise<IssuedInvitation> {
  if (actor.role) refuseUnlessAllowed(judgeRoleChange(actor.role, null, i.role, 1), 'role');
  const token = newToken();
  return db.transaction(async (tx) => {
    const row = await store.insertInvitation(tx, { ...i, tokenHash: hashToken(token) });
    await recordAudit(tx, {
      organizationId: i.organizationId,
      action: 'invitation.created',
      actorKind: actor.kind,
      actorId: actor.id,
      subjectPersonId: null,
      address: actor.address,
      details: { invitation_id: row.id, email: row.email, role: row.role, expires_at: row.expires_at.toISOString() },
    });
    return { ...row, token };
  });
}

/**
 * Accepts an invitation: creates the person with `password`, or, when the email already has an
 * account, adds the membership once `password` proves it is theirs. Single use, checked under a
 * row lock, so two concurrent accepts cannot both succeed.
 */
export async function acceptInvitation(db: ControlDb, token: string, password: string, address: string | null) {
  const tokenHash = hashToken(token);
  // A first look outside the transaction: argon2 (~100 ms) must not run while the row is locked.
  const peek = await store.lockedInvitation(db, tokenHash);
  refuseUnusable(peek);
  const existing = await store.personByEmail(db, peek!.email);
  let newHash: string | null = null;
  if (existing) {
    if (!(await passwordMatches(existing.password_hash, password))) {
      throw new ValidationError('password', `is not the password of the existing account ${existing.email}`);
    }
  } else {
    newHash = await hashPassword(checkNewPassword('password', password));
  }
  return db.transaction(async (tx) => {
    const invitation = await store.lockedInvitation(tx, tokenHash);
    refuseUnusable(invitation);
    const now = await store.personByEmail(tx, invitation!.email);
    // An account created meanwhile was not proven by this password: accept again to prove it.
    if (now && !existing)
      throw new AppError(409, 'CONFLICT', `${now.email} has an account now; accept again with its password`, { field: 'password' });
    const person = now ?? (await store.insertPerson(tx, invitation!.email, newHash!));
    if (!(await store.insertMembership(tx, invitation!.organization_id, person.id, invitation!.role))) {
      throw new AppError(409, 'CONFLICT', `${person.email} is already a member of this organization`, { field: 'token' });
    }
    await store.markInvitationAccepted(tx, invitation!.id, person.id);
    await recordAudit(tx, {
      organizationId: invitation!.organization_id,
      action: 'invitation.accepted',
      actorKind: 'person',
      actorId: person.id,
      subjectPersonId: person.id,
      address,
      details: { invitation_id: invitation!.id, email: person.email, role: invitation!.role, new_account: !existing },
    });
    return { personId: person.id, email: person.email, organizationId: invitation!.organization_id, role: invitation!.role };
  });
}

function refuseUnusable(invitation: (store.InvitationRow & { expired: boolean }) | null): void {
  if (!invitation) throw new ValidationError('token', 'is not a valid invitation token');
  if (invitation.accepted_at) throw new ValidationError('token', 'was already used');
  if (invitation.revoked_at) throw new ValidationError('token', 'was revoked; ask for a new invitation');
  if (invitation.expired) throw new ValidationError('token', 'has expired; ask for a new invitation');
}

export interface SignedIn {
  token: string;
  csrfToken: string;
  sessionId: string;
  expiresAt: Date;
  personId: string;
  email: string;
  memberships: store.MembershipRow[];
}

/**
 * Signs a person in: refused while the account or the address is locked, a failure counted against
 * both, a success forgetting the account's failures. Always a new session (never the cookie's
 * old one, which is ended: no fixation).
 */
export async function signIn(
  db: ControlDb,
  masterKey: Buffer,
  attempt: { email: string; password: string; address: string | null; previousToken: string | null },
): Promise<SignedIn> {
  const subjects = [`account:${attempt.email}`, ...(attempt.address ? [`address:${attempt.address}`] : [])];
  const locked = await store.lockedForSeconds(db, subjects);
  if (locked > 0) throw new SignInLockedError(locked);
  const person = await store.personByEmail(db, attempt.email);
  const matches = await passwordMatches(person?.password_hash ?? UNKNOWN_ACCOUNT_HASH, attempt.password);
  if (!person || !matches) {
    await countFailure(db, subjects[0]!, ACCOUNT_LOCKOUT);
    if (subjects[1]) await countFailure(db, subjects[1], ADDRESS_LOCKOUT);
    await recordAudit(db, {
      organizationId: null,
      action: 'sign_in.failed',
      actorKind: person ? 'person' : 'anonymous',
      actorId: person?.id ?? null,
      subjectPersonId: person?.id ?? null,
      address: attempt.address,
      details: { email: attempt.email },
    });
    throw new SignInFailedError();
  }
  return startSession(db, masterKey, {
    person,
    address: attempt.address,
    previousToken: attempt.previousToken,
    method: 'password',
    forgetSubject: subjects[0]!,
  });
}

/**
 * Starts a session for a person whose identity is proven (a password, or an ID token from the
 * organization's OpenID provider): the one place sessions begin, so both ways set the same cookie,
 * CSRF token and `sign_in` audit row (with `method`), and end the cookie's old session (no fixation).
 */
export async function startSession(
  db: ControlDb,
  masterKey: Buffer,
  s: {
    person: { id: string; email: string };
    address: string | null;
    previousToken: string | null;
    method: 'password' | 'sso';
    forgetSubject?: string;
  },
): Promise<SignedIn> {
  const { person } = s;
  const token = newToken();
  const session = await db.transaction(async (tx) => {
    if (s.previousToken) await store.deleteSessionByHash(tx, hashToken(s.previousToken));
    await store.deleteDeadSessions(tx, person.id, SESSION_IDLE_HOURS);
    if (s.forgetSubject) await store.forgetFailures(tx, s.forgetSubject);
    await store.forgetOldFailures(tx);
    const row = await store.insertSession(tx, {
      personId: person.id,
      tokenHash: hashToken(token),
      address: s.address,
      lifetimeHours: SESSION_LIFETIME_HOURS,
    });
    await recordAudit(tx, {
      organizationId: null,
      action: 'sign_in',
      actorKind: 'person',
      actorId: person.id,
      subjectPersonId: person.id,
      address: s.address,
      details: { session_id: row.id, method: s.method },
    });
    return row;
  });
  return {
    token,
    csrfToken: csrfTokenOf(masterKey, token),
    sessionId: session.id,
    expiresAt: session.expires_at,
    personId: person.id,
    email: person.email,
    memberships: await store.membershipsOfPerson(db, person.id),
  };
}

async function countFailure(db: ControlDb, subject: string, policy: LockoutPolicy): Promise<void> {
  const failures = await store.countFailure(db, subject, FAILURE_MEMORY_SECONDS);
  const seconds = lockSeconds(policy, failures);
  if (seconds > 0) await store.lockSubject(db, subject, seconds);
}

/** Ends this session, or with `everywhere` every session of the person. */
export async function signOut(
  db: ControlDb,
  caller: { personId: string; sessionId: string },
  address: string | null,
  everywhere: boolean,
): Promise<void> {
  await db.transaction(async (tx) => {
    const ended = everywhere ? await store.deleteSessionsOfPerson(tx, caller.personId) : await store.deleteSession(tx, caller.sessionId);
    await recordAudit(tx, {
      organizationId: null,
      action: everywhere ? 'sign_out.everywhere' : 'sign_out',
      actorKind: 'person',
      actorId: caller.personId,
      subjectPersonId: caller.personId,
      address,
      details: { session_id: caller.sessionId, sessions_ended: ended },
    });
  });
}

/** Gives a member another role, within judgeRoleChange's rules; the owner count is read under lock. */
export async function changeRole(
  db: ControlDb,
  actor: Actor & { role: Role },
  organizationId: string,
  personId: string,
  role: Role,
): Promise<store.MembershipRow> {
  return db.transaction(async (tx) => {
    const member = await store.membership(tx, organizationId, personId);
    if (!member) throw new NotFoundError('Member', personId);
    const owners = await store.lockedOwnerCount(tx, organizationId);
    refuseUnlessAllowed(judgeRoleChange(actor.role, member.role, role, owners), 'role');
    if (member.role === role) return member;
    await store.updateRole(tx, organizationId, personId, role);
    await recordAudit(tx, {
      organizationId,
      action: 'member.role_changed',
      actorKind: actor.kind,
      actorId: actor.id,
      subjectPersonId: personId,
      address: actor.address,
      details: { email: member.email, before: { role: member.role }, after: { role } },
    });
    return { ...member, role };
  });
}

/** Removes a member, within judgeRemoval's rules; the owner count is read under lock. Their sessions stay, without this organization. */
export async function removeMember(db: ControlDb, actor: Actor & { role: Role }, organizationId: string, personId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const member = await store.membership(tx, organizationId, personId);
    if (!member) throw new NotFoundError('Member', personId);
    refuseUnlessAllowed(judgeRemoval(actor.role, member.role, await store.lockedOwnerCount(tx, organizationId)), 'personId');
    await store.deleteMembership(tx, organizationId, personId);
    await recordAudit(tx, {
      organizationId,
      action: 'member.removed',
      actorKind: actor.kind,
      actorId: actor.id,
      subjectPersonId: personId,
      address: actor.address,
      details: { email: member.email, before: { role: member.role } },
    });
  });
}

/** Revokes an open invitation; an admin may not revoke an owner's invitation (as they may not make one). */
export async function revokeInvitation(
  db: ControlDb,
  actor: Actor & { role: Role },
  organizationId: string,
  invitationId: string,
): Promise<store.InvitationRow> {
  return db.transaction(async (tx) => {
    const open = (await store.openInvitations(tx, organizationId)).find((i) => i.id === invitationId);
    if (!open) throw new NotFoundError('Invitation', invitationId);
    refuseUnlessAllowed(judgeRoleChange(actor.role, null, open.role, 1), 'invitationId');
    const revoked = await store.revokeInvitation(tx, organizationId, invitationId);
    if (!revoked) throw new NotFoundError('Invitation', invitationId);
    await recordAudit(tx, {
      organizationId,
      action: 'invitation.revoked',
      actorKind: actor.kind,
      actorId: actor.id,
      subjectPersonId: null,
      address: actor.address,
      details: { invitation_id: revoked.id, email: revoked.email, role: revoked.role },
    });
    return revoked;
  });
}

function refuseUnlessAllowed(verdict: ReturnType<typeof judgeRoleChange>, field: string): void {
  if (!verdict.allowed) throw new AccessDeniedError(field, `Not allowed: ${verdict.reason}`);
}

/** Sessions for core/http/authentication.ts: one lookup per request, last-seen refreshed every few minutes. */
export class SessionDirectory implements PersonSessions {
  constructor(
    private readonly db: ControlDb,
    private readonly masterKey: Buffer,
  ) {}

  async resolve(token: string): Promise<ResolvedSession | null> {
    const row = await store.liveSession(this.db, hashToken(token), SESSION_IDLE_HOURS);
    if (!row) return null;
    if (row.stale) await store.touchSession(this.db, row.id);
    return {
      personId: row.person_id,
      sessionId: row.id,
      csrfToken: csrfTokenOf(this.masterKey, token),
      memberships: row.memberships.map((m) => ({ organizationId: m.organization_id, role: m.role })),
    };
  }
}
