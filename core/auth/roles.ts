// A person's role in an organization and the scopes it grants: the same scopes API keys carry, so
// one scope check serves both. Pure; people/ stores the role, this says what it may do.
import { ORGANIZATION_ADMIN_SCOPE, type AccessScope } from './scopes.js';

export const ROLES = ['owner', 'admin', 'analyst', 'finance', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const EVERY_READ: AccessScope[] = ['usage:read', 'costs:read', 'revenue:read', 'dimensions:read'];

/** People never ingest (usage:write needs a key's signing secret). */
const ROLE_SCOPES: Record<Role, readonly AccessScope[]> = {
  owner: [...EVERY_READ, ORGANIZATION_ADMIN_SCOPE],
  admin: [...EVERY_READ, ORGANIZATION_ADMIN_SCOPE],
  analyst: EVERY_READ,
  finance: ['costs:read', 'revenue:read'],
  viewer: ['costs:read'],
};

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function scopesOfRole(role: Role): AccessScope[] {
  return [...ROLE_SCOPES[role]];
}
