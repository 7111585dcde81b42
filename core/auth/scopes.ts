// The spec's API-key scopes, and the one scope only people hold. Each endpoint requires one (spec
// "Summary table"); one check (core/http/authentication.ts) serves API keys and people alike.
export const SCOPES = ['usage:write', 'usage:read', 'costs:read', 'revenue:read', 'dimensions:read'] as const;
export type Scope = (typeof SCOPES)[number];

/** Managing an organization's members and reading its audit trail: owners and admins, never a key. */
export const ORGANIZATION_ADMIN_SCOPE = 'organization:admin';
export type AccessScope = Scope | typeof ORGANIZATION_ADMIN_SCOPE;

/** A signed-in person acting in one of their organizations (absent for API keys). */
interface PersonCaller {
  personId: string;
  sessionId: string;
  role: string;
}

/** Who is calling: derived from the API key or the session, never from the request's body. */
export interface AuthContext {
  organizationId: string;
  /** The API key's id; for a person, their session's id. */
  keyId: string;
  ownerUserId: string | null;
  scopes: AccessScope[];
  /** Decrypted signing secret for request signing (ingestion); empty for a person, who cannot ingest. */
  signingSecret: string;
  person?: PersonCaller;
}
