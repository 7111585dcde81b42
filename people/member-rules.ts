// Who may give which role: the rules against role escalation. Pure. Owners may do anything but
// leave the organization without an owner; admins manage everyone below owner and may not make
// owners. Everything else is refused before it reaches here (the organization:admin scope).
import type { Role } from '../core/auth/roles.js';

export type RoleChangeVerdict = { allowed: true } | { allowed: false; reason: string };

/**
 * May `actor` give `to` to a member whose role is `from` (null for an invitation)? `owners` is
 * how many owners the organization has now.
 */
export function judgeRoleChange(actor: Role, from: Role | null, to: Role, owners: number): RoleChangeVerdict {
  if (actor !== 'owner' && actor !== 'admin') return { allowed: false, reason: `a ${actor} may not manage members` };
  if (actor === 'admin' && (to === 'owner' || from === 'owner')) {
    return { allowed: false, reason: 'only an owner may make or change an owner' };
  }
  if (from === 'owner' && to !== 'owner' && owners <= 1) {
    return { allowed: false, reason: 'the organization would have no owner left' };
  }
  return { allowed: true };
}

/** May `actor` remove a member whose role is `from` (themselves included)? The same rules as giving them another role. */
export function judgeRemoval(actor: Role, from: Role, owners: number): RoleChangeVerdict {
  if (actor === 'admin' && from === 'owner') return { allowed: false, reason: 'only an owner may remove an owner' };
  return judgeRoleChange(actor, from, from === 'owner' ? 'admin' : from, owners);
}
