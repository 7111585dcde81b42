// The secrets of people's access: invitation and session tokens (32 random bytes, base64url; only
// their SHA-256 is stored) and a session's CSRF token, derived from the session token under the
// master key so it need not be stored and can be answered again (GET /v1/auth/session).
import crypto from 'node:crypto';

export function newToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

export function csrfTokenOf(masterKey: Buffer, sessionToken: string): string {
  return crypto.createHmac('sha256', masterKey).update(`csrf\0${sessionToken}`, 'utf8').digest('base64url');
}
