// What the members page says of roles, and the role the signed-in person acts with (whose rules,
// people/member-rules.ts, decide which choices are offered).
import type { Role } from '../../../../core/auth/roles.js';
import { currentCredential } from '../../api/client.js';

export const ROLE_NOTES: Record<Role, string> = {
  owner: 'everything, and manages members',
  admin: 'everything, and manages members below owner',
  analyst: 'every read',
  finance: 'cost, revenue and margin reads',
  viewer: 'cost reads',
};

export function actorRole(): Role | null {
  const credential = currentCredential();
  return credential?.kind === 'session' ? credential.role : null;
}
