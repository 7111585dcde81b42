// Who a request to people's endpoints comes from: the acting person with their role (the address
// is core/http/audit-trail.ts's rule), and the origin links point at.
import type { Request as ExRequest } from 'express';
import { isRole, type Role } from '../core/auth/roles.js';
import { personAuthOf } from '../core/http/authentication.js';
import { type Actor, clientAddress } from '../core/http/audit-trail.js';

/** The signed-in owner or admin as the audit trail records them, with their role in the chosen organization. */
export function personActor(req: ExRequest): Actor & { role: Role; organizationId: string } {
  const auth = personAuthOf(req);
  const role = auth.person.role;
  if (!isRole(role)) throw new Error(`unknown role ${role}`);
  return { kind: 'person', id: auth.person.personId, address: clientAddress(req), role, organizationId: auth.organizationId };
}

export function requestOrigin(req: ExRequest): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}
