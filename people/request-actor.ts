// Who a request to people's endpoints comes from: the client's address (the socket's peer, or with
// TRUST_PROXY the address the nearest proxy saw), the acting person, and the origin links point at.
import type { Request as ExRequest } from 'express';
import { appContext } from '../core/app-context.js';
import { isRole, type Role } from '../core/auth/roles.js';
import { personAuthOf } from '../core/http/authentication.js';
import type { Actor } from './people.service.js';

/** The client's address: the socket's peer, or with TRUST_PROXY the address the nearest proxy saw. */
export function clientAddress(req: ExRequest): string | null {
  if (appContext(req).config.trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const last = typeof forwarded === 'string' ? forwarded.split(',').at(-1)?.trim() : undefined;
    if (last) return last.slice(0, 100);
  }
  return req.socket.remoteAddress ?? null;
}

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
