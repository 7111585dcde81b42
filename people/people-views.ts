// Wire shapes of people's endpoints (snake_case, ISO 8601 UTC) and the bodies they take.
import type { Role } from '../core/auth/roles.js';
import type { AuditRow } from './audit.store.js';
import type { IssuedInvitation, SignedIn } from './people.service.js';
import type { InvitationRow, MembershipRow } from './people.store.js';

export interface CreateInvitationBody {
  /** @maxLength 254 must be at most 254 characters */
  email: string;
  /** owner, admin, analyst (every read), finance (cost, revenue and margin reads) or viewer (cost reads). */
  role: Role;
  /**
   * Hours until the invitation expires (default 168, a week).
   * @isInt must be an integer
   * @minimum 1 must be >= 1
   * @maximum 720 must be at most 720 (30 days)
   */
  expires_in_hours?: number;
}

export interface AcceptInvitationBody {
  /** @maxLength 200 must be at most 200 characters */
  token: string;
  /**
   * The new account's password (12–256 characters), or the existing account's when the email already has one.
   * @maxLength 256 must be at most 256 characters
   */
  password: string;
}

export interface SignInBody {
  /** @maxLength 254 must be at most 254 characters */
  email: string;
  /** @maxLength 256 must be at most 256 characters */
  password: string;
}

export interface PasswordResetBody {
  /** @maxLength 254 must be at most 254 characters */
  email: string;
}

export interface ConfirmPasswordResetBody {
  /**
   * The token of the reset link.
   * @maxLength 200 must be at most 200 characters
   */
  token: string;
  /**
   * The new password (12–256 characters).
   * @maxLength 256 must be at most 256 characters
   */
  password: string;
}

export interface PasswordResetRequestedView {
  /** Always `accepted`: the same answer whether or not the email has an account. */
  status: 'accepted';
}

export interface ChangeRoleBody {
  role: Role;
}

export interface InvitationView {
  invitation_id: string;
  organization_id: string;
  email: string;
  role: Role;
  /** The secret that accepts the invitation: shown in this response only (stored hashed). */
  token: string;
  /** The console address that accepts it (the token in the fragment, never sent to a server log). */
  url: string;
  expires_at: string;
  created_at: string;
}

/** An open invitation as listed: never its token (shown once, at creation). */
export interface OpenInvitationView {
  invitation_id: string;
  email: string;
  role: Role;
  expires_at: string;
  created_at: string;
}

export interface OpenInvitationList {
  invitations: OpenInvitationView[];
  total: number;
}

export interface AcceptedInvitationView {
  person_id: string;
  email: string;
  organization_id: string;
  role: Role;
}

interface MembershipView {
  organization_id: string;
  organization_name: string;
  role: Role;
}

export interface SessionView {
  person_id: string;
  email: string;
  /** Send it as X-CSRF-Token on every state-changing request made with this session. */
  csrf_token: string;
  expires_at: string | null;
  organizations: MembershipView[];
}

export interface MemberView {
  person_id: string;
  email: string;
  role: Role;
  member_since: string;
}

export interface MemberList {
  members: MemberView[];
  total: number;
}

export interface AuditEventView {
  audit_event_id: string;
  occurred_at: string;
  /** Null for a person's own events (sign-in, sign-out), shown to their organizations. */
  organization_id: string | null;
  /** sign_in, sign_in.failed, sign_out, sign_out.everywhere, invitation.created, invitation.accepted, member.role_changed. */
  action: string;
  actor: { kind: 'person' | 'api_key' | 'admin_token' | 'anonymous'; id: string | null };
  subject_person_id: string | null;
  address: string | null;
  /** What changed (before and after for a role change); never a secret. */
  details: Record<string, unknown>;
}

export interface AuditEventList {
  audit_events: AuditEventView[];
  total: number;
  limit: number;
  offset: number;
}

export function invitationView(i: IssuedInvitation, origin: string): InvitationView {
  return {
    invitation_id: i.id,
    organization_id: i.organization_id,
    email: i.email,
    role: i.role,
    token: i.token,
    url: `${origin}/#/accept-invitation?token=${i.token}`,
    expires_at: i.expires_at.toISOString(),
    created_at: i.created_at.toISOString(),
  };
}

export function openInvitationView(i: InvitationRow): OpenInvitationView {
  return {
    invitation_id: i.id,
    email: i.email,
    role: i.role,
    expires_at: i.expires_at.toISOString(),
    created_at: i.created_at.toISOString(),
  };
}

function membershipView(m: MembershipRow): MembershipView {
  return { organization_id: m.organization_id, organization_name: m.organization_name, role: m.role };
}

export function sessionView(
  s: Pick<SignedIn, 'personId' | 'email' | 'csrfToken' | 'memberships'> & { expiresAt: Date | null },
): SessionView {
  return {
    person_id: s.personId,
    email: s.email,
    csrf_token: s.csrfToken,
    expires_at: s.expiresAt?.toISOString() ?? null,
    organizations: s.memberships.map(membershipView),
  };
}

export function memberView(m: MembershipRow): MemberView {
  return { person_id: m.person_id, email: m.email, role: m.role, member_since: m.created_at.toISOString() };
}

export function auditEventView(a: AuditRow): AuditEventView {
  return {
    audit_event_id: a.id,
    occurred_at: a.occurred_at.toISOString(),
    organization_id: a.organization_id,
    action: a.action,
    actor: { kind: a.actor_kind, id: a.actor_id },
    subject_person_id: a.subject_person_id,
    address: a.address,
    details: a.details,
  };
}
