// Single sign-on's storage (core/control/migrations/021_sso.sql): each organization's OpenID
// provider, and the sign-ins under way. A state is taken at most once (DELETE … RETURNING), so a
// replayed callback finds nothing.
import type { Role } from '../core/auth/roles.js';
import type { Queryable } from '../core/control/db.js';

export interface SsoConfigurationRow {
  organization_id: string;
  issuer: string;
  client_id: string;
  client_secret_sealed: string;
  allowed_domains: string[];
  default_role: Role;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'organization_id, issuer, client_id, client_secret_sealed, allowed_domains, default_role, created_at, updated_at';

export async function ssoConfiguration(db: Queryable, organizationId: string): Promise<SsoConfigurationRow | null> {
  const rows = await db.query<SsoConfigurationRow>(`SELECT ${COLUMNS} FROM sso_configurations WHERE organization_id = $1`, [
    organizationId,
  ]);
  return rows[0] ?? null;
}

/** The organization whose allowed domains hold `domain`; null when none or several do (then the id must be given). */
export async function organizationOfDomain(db: Queryable, domain: string): Promise<string | null> {
  const rows = await db.query<{ organization_id: string }>(
    'SELECT organization_id FROM sso_configurations WHERE $1 = ANY(allowed_domains) LIMIT 2',
    [domain],
  );
  return rows.length === 1 ? rows[0]!.organization_id : null;
}

export async function upsertSsoConfiguration(
  db: Queryable,
  c: Omit<SsoConfigurationRow, 'created_at' | 'updated_at'>,
): Promise<SsoConfigurationRow> {
  const rows = await db.query<SsoConfigurationRow>(
    `INSERT INTO sso_configurations (organization_id, issuer, client_id, client_secret_sealed, allowed_domains, default_role)
     VALUES ($1, $2, $3, $4, $5::text[], $6)
     ON CONFLICT (organization_id) DO UPDATE SET issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id,
       client_secret_sealed = EXCLUDED.client_secret_sealed, allowed_domains = EXCLUDED.allowed_domains,
       default_role = EXCLUDED.default_role, updated_at = now()
     RETURNING ${COLUMNS}`,
    [c.organization_id, c.issuer, c.client_id, c.client_secret_sealed, c.allowed_domains, c.default_role],
  );
  return rows[0]!;
}

export async function deleteSsoConfiguration(db: Queryable, organizationId: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM sso_configurations WHERE organization_id = $1 RETURNING organization_id', [organizationId]);
  return rows.length === 1;
}

export async function insertAttempt(
  db: Queryable,
  a: { stateHash: string; organizationId: string; nonce: string; codeVerifier: string; lifetimeSeconds: number },
): Promise<void> {
  await db.query(
    `INSERT INTO sso_attempts (state_hash, organization_id, nonce, code_verifier, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5::int))`,
    [a.stateHash, a.organizationId, a.nonce, a.codeVerifier, a.lifetimeSeconds],
  );
  // Abandoned sign-ins do not pile up.
  await db.query('DELETE FROM sso_attempts WHERE expires_at < now()');
}

/** Takes the live attempt of a state, once: a second take of the same state finds nothing. */
export async function takeAttempt(
  db: Queryable,
  stateHash: string,
): Promise<{ organization_id: string; nonce: string; code_verifier: string } | null> {
  const rows = await db.query<{ organization_id: string; nonce: string; code_verifier: string; live: boolean }>(
    'DELETE FROM sso_attempts WHERE state_hash = $1 RETURNING organization_id, nonce, code_verifier, expires_at > now() AS live',
    [stateHash],
  );
  return rows[0]?.live ? rows[0] : null;
}
