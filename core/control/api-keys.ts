// API keys: the key itself is shown once and stored as SHA-256; its signing secret is stored
// AES-256-GCM under the master key, bound (as associated data) to the key's id.
import crypto from 'node:crypto';
import type { Scope } from '../auth/scopes.js';
import {
  API_KEY_PREFIX,
  apiKeyDisplayPrefix,
  decryptSecret,
  encryptSecret,
  generateApiKey,
  generateSigningSecret,
  hashApiKey,
} from '../auth/secrets.js';
import { NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Queryable } from './db.js';
import { FOREIGN_KEY_VIOLATION, sqlState } from './sql-errors.js';

export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  /** The first characters of the key, for listings ("mk_live_AbCdEf"). */
  keyPrefix: string;
  scopes: Scope[];
  ownerUserId: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** What issueApiKey returns: the only time the key and signing secret exist in clear. */
export interface IssuedApiKey extends ApiKeyRecord {
  apiKey: string;
  signingSecret: string;
}

/** Who an active key belongs to; the fields of core/auth/scopes.ts AuthContext. */
export interface ApiKeyIdentity {
  organizationId: string;
  keyId: string;
  ownerUserId: string;
  scopes: Scope[];
  signingSecret: string;
}

interface ApiKeyRow {
  id: string;
  organization_id: string;
  key_prefix: string;
  scopes: Scope[];
  owner_user_id: string;
  created_at: Date;
  revoked_at: Date | null;
}

const COLUMNS = 'id, organization_id, key_prefix, scopes, owner_user_id, created_at, revoked_at';

function toRecord(r: ApiKeyRow): ApiKeyRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    keyPrefix: r.key_prefix,
    scopes: r.scopes,
    ownerUserId: r.owner_user_id,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  };
}

/** The associated data binding a signing-secret ciphertext to its key row. */
function secretContext(keyId: string): string {
  return `api_key:${keyId}`;
}

/**
 * Creates a key with a fresh signing secret. `ownerUserId` (the account user who owns the usage)
 * defaults to a new UUID. Unknown organization → NotFoundError.
 */
export async function issueApiKey(
  db: Queryable,
  masterKey: Buffer,
  organizationId: string,
  input: { scopes: Scope[]; ownerUserId?: string },
): Promise<IssuedApiKey> {
  if (!isUuid(organizationId)) throw new NotFoundError('organization', organizationId);
  const id = crypto.randomUUID();
  const apiKey = generateApiKey();
  const signingSecret = generateSigningSecret();
  const sealed = encryptSecret(masterKey, signingSecret, secretContext(id));
  try {
    const [row] = await db.query<ApiKeyRow>(
      `INSERT INTO api_keys (id, organization_id, key_hash, key_prefix, scopes, owner_user_id,
                             signing_secret_ciphertext, signing_secret_iv, signing_secret_tag)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       RETURNING ${COLUMNS}`,
      [
        id,
        organizationId,
        hashApiKey(apiKey),
        apiKeyDisplayPrefix(apiKey),
        [...new Set(input.scopes)],
        input.ownerUserId ?? crypto.randomUUID(),
        sealed.ciphertext,
        sealed.iv,
        sealed.tag,
      ],
    );
    return { ...toRecord(row!), apiKey, signingSecret };
  } catch (err) {
    if (sqlState(err) === FOREIGN_KEY_VIOLATION) throw new NotFoundError('organization', organizationId);
    throw err;
  }
}

/**
 * Resolves a presented key to its identity, with the signing secret decrypted; null when the key
 * is unknown or revoked. Looked up by hash, so this is the one query not scoped by organization.
 */
export async function findActiveApiKey(db: Queryable, masterKey: Buffer, apiKey: string): Promise<ApiKeyIdentity | null> {
  if (!apiKey.startsWith(API_KEY_PREFIX)) return null;
  const [row] = await db.query<{
    id: string;
    organization_id: string;
    scopes: Scope[];
    owner_user_id: string;
    signing_secret_ciphertext: Buffer;
    signing_secret_iv: Buffer;
    signing_secret_tag: Buffer;
  }>(
    `SELECT id, organization_id, scopes, owner_user_id,
            signing_secret_ciphertext, signing_secret_iv, signing_secret_tag
       FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`,
    [hashApiKey(apiKey)],
  );
  if (!row) return null;
  const signingSecret = decryptSecret(
    masterKey,
    { ciphertext: row.signing_secret_ciphertext, iv: row.signing_secret_iv, tag: row.signing_secret_tag },
    secretContext(row.id),
  );
  return {
    organizationId: row.organization_id,
    keyId: row.id,
    ownerUserId: row.owner_user_id,
    scopes: row.scopes,
    signingSecret,
  };
}

export async function listApiKeys(db: Queryable, organizationId: string): Promise<ApiKeyRecord[]> {
  if (!isUuid(organizationId)) return [];
  const rows = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE organization_id = $1 ORDER BY created_at, id`, [
    organizationId,
  ]);
  return rows.map(toRecord);
}

/** Revokes a key (idempotent: an already revoked key keeps its first revocation time). */
export async function revokeApiKey(db: Queryable, organizationId: string, keyId: string): Promise<ApiKeyRecord> {
  if (!isUuid(organizationId) || !isUuid(keyId)) throw new NotFoundError('api key', keyId);
  const [row] = await db.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
      WHERE organization_id = $1 AND id = $2
      RETURNING ${COLUMNS}`,
    [organizationId, keyId],
  );
  if (!row) throw new NotFoundError('api key', keyId);
  return toRecord(row);
}
