// Secrets: API keys (shown once, stored as SHA-256), signing secrets (stored AES-256-GCM under the
// master key from config) and the master key itself. GCM's tag makes any tampering fail loudly.
import crypto from 'node:crypto';
import { ConfigError } from '../config.js';

export const API_KEY_PREFIX = 'mk_live_';
const SIGNING_SECRET_PREFIX = 'mks_';
/** Characters of the key kept in clear for display ("mk_live_AbCd…"). */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 6;

const IV_BYTES = 12;
const TAG_BYTES = 16;
const MASTER_KEY_BYTES = 32;

export interface EncryptedSecret {
  ciphertext: Buffer;
  iv: Buffer;
  tag: Buffer;
}

/** 'mk_live_' + 32 random bytes, base64url (43 characters). */
export function generateApiKey(): string {
  return API_KEY_PREFIX + crypto.randomBytes(32).toString('base64url');
}

/** The part of a key safe to show in listings. */
export function apiKeyDisplayPrefix(apiKey: string): string {
  return apiKey.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** Lowercase hex SHA-256: what the control plane stores and looks keys up by. */
export function hashApiKey(apiKey: string): string {
  return crypto.createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/** 'mks_' + 32 random bytes, base64url: the HMAC key a client signs ingest requests with. */
export function generateSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + crypto.randomBytes(32).toString('base64url');
}

/** A fresh master key as 64 hex characters (printed on first start when none is configured). */
export function generateMasterKey(): string {
  return crypto.randomBytes(MASTER_KEY_BYTES).toString('hex');
}

/**
 * Accepts 64 hex characters or base64/base64url of exactly 32 bytes. The error never echoes the
 * value, since it is a secret.
 */
export function parseMasterKey(value: string): Buffer {
  const s = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(s)) return Buffer.from(s, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(s)) {
    const bytes = Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    // Buffer's decoder skips junk silently; a round trip proves every character was meaningful.
    const canonical = bytes.toString('base64').replace(/=+$/, '');
    const given = s.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
    if (bytes.length === MASTER_KEY_BYTES && canonical === given) return bytes;
  }
  throw new ConfigError(
    `MARGINAL_MASTER_KEY must be 32 bytes written as 64 hex characters or as base64 (got ${s.length} characters that are neither)`,
  );
}

function checkKey(masterKey: Buffer): void {
  if (masterKey.length !== MASTER_KEY_BYTES) {
    throw new Error(`master key must be ${MASTER_KEY_BYTES} bytes, got ${masterKey.length}`);
  }
}

/**
 * AES-256-GCM with a random 12-byte IV. `associatedData` binds the ciphertext to its context
 * (e.g. the row it belongs to), so a ciphertext copied into another row does not decrypt.
 */
export function encryptSecret(masterKey: Buffer, plaintext: string, associatedData?: string): EncryptedSecret {
  checkKey(masterKey);
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv('aes-256-gcm', masterKey, iv, { authTagLength: TAG_BYTES });
  if (associatedData !== undefined) cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { ciphertext, iv, tag: cipher.getAuthTag() };
}

export class SecretDecryptionError extends Error {
  constructor() {
    super('secret could not be decrypted: wrong master key or tampered ciphertext');
    this.name = 'SecretDecryptionError';
  }
}

/** Inverse of encryptSecret; throws SecretDecryptionError on a wrong key, AAD or any altered byte. */
export function decryptSecret(masterKey: Buffer, secret: EncryptedSecret, associatedData?: string): string {
  checkKey(masterKey);
  if (secret.iv.length !== IV_BYTES || secret.tag.length !== TAG_BYTES) throw new SecretDecryptionError();
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', masterKey, secret.iv, { authTagLength: TAG_BYTES });
    if (associatedData !== undefined) decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(secret.tag);
    return Buffer.concat([decipher.update(secret.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretDecryptionError();
  }
}

/** One-string form for JSON columns: "v1.<iv>.<tag>.<ciphertext>", each part base64url. */
export function sealSecret(masterKey: Buffer, plaintext: string, associatedData?: string): string {
  const e = encryptSecret(masterKey, plaintext, associatedData);
  return ['v1', e.iv, e.tag, e.ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

export function unsealSecret(masterKey: Buffer, sealed: string, associatedData?: string): string {
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== 'v1') throw new SecretDecryptionError();
  const [, iv, tag, ciphertext] = parts.map((p) => Buffer.from(p, 'base64url'));
  return decryptSecret(masterKey, { iv: iv!, tag: tag!, ciphertext: ciphertext! }, associatedData);
}
