// What the signed-in credential may open: a person the pages their role's scopes read (the
// server's rule, core/auth/roles.ts, not a copy), a key every read page (the console does not know
// its scopes; a page names the one missing) and never the admin pages. The server judges each
// request again; this only keeps links to refused pages out of sight.
import { scopesOfRole } from '../../core/auth/roles.js';
import type { AccessScope } from '../../core/auth/scopes.js';
import type { Credential } from './api/client.js';

export function mayOpen(credential: Credential, scope: AccessScope): boolean {
  if (credential.kind === 'api_key') return scope !== 'organization:admin';
  return scopesOfRole(credential.role).includes(scope);
}
