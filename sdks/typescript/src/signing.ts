// Request signing for ingestion, exactly as the service checks it (ingest/signature.ts):
// X-Signature = "v1=" + lowercase hex HMAC-SHA256(key = UTF-8 secret, UTF-8 of timestamp + "." + raw body),
// X-Timestamp = Unix seconds. The body signed must be the exact bytes sent. Vectors: sdks/test-vectors/signing.json.
import { createHmac } from 'node:crypto';

/** The X-Signature value for `body` sent with X-Timestamp `timestamp`. */
export function sign(secret: string, timestamp: string | number, body: string | Uint8Array): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

/** X-Timestamp and X-Signature headers for a body sent now (`nowMs` for tests). */
export function signatureHeaders(
  secret: string,
  body: string | Uint8Array,
  nowMs = Date.now(),
): Record<'X-Timestamp' | 'X-Signature', string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  return { 'X-Timestamp': timestamp, 'X-Signature': sign(secret, timestamp, body) };
}
