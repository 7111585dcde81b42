// The spec's API-key scopes. Each endpoint requires one (spec "Summary table").
export const SCOPES = ['usage:write', 'usage:read', 'costs:read', 'revenue:read', 'dimensions:read'] as const;
export type Scope = (typeof SCOPES)[number];

/** Who is calling: derived from the API key, never from the request. */
export interface AuthContext {
  organizationId: string;
  keyId: string;
  ownerUserId: string | null;
  scopes: Scope[];
  /** Decrypted signing secret for request signing (ingestion). */
  signingSecret: string;
}
