// Webhook signatures, Stripe's scheme: `Marginal-Signature: t=<unix seconds>,v1=<hex>` where hex is
// HMAC-SHA256(secret, t + "." + raw body). During a secret rotation the header carries one v1 per
// live secret (newest first), so a receiver holding either secret verifies.
import crypto from 'node:crypto';

export const SIGNATURE_HEADER = 'Marginal-Signature';
export const EVENT_ID_HEADER = 'Marginal-Event-Id';
const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** 'whsec_' + 32 random bytes, base64url. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + crypto.randomBytes(32).toString('base64url');
}

/** The header value for `body` sent at `timestampSeconds`, signed with every secret given. */
export function signatureHeader(secrets: readonly string[], timestampSeconds: number, body: string): string {
  if (secrets.length === 0) throw new Error('at least one secret is needed to sign');
  const t = Math.floor(timestampSeconds);
  const signed = `${t}.${body}`;
  const v1 = secrets.map((s) => `v1=${crypto.createHmac('sha256', s).update(signed, 'utf8').digest('hex')}`);
  return [`t=${t}`, ...v1].join(',');
}
