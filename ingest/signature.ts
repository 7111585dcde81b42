// Request signing for ingestion (docs/design.md "Signature"): X-Signature = "v1=" + hex
// HMAC-SHA256(signing secret, X-Timestamp + "." + raw body), X-Timestamp in Unix seconds within
// 5 minutes of server time. Pure: the caller passes the clock. Every fault is a SignatureError
// (flat 401 body); the digest comparison is constant-time.
import crypto from 'node:crypto';
import { SignatureError } from '../core/errors.js';

const SIGNATURE_SCHEME = 'v1';
/** Allowed distance between X-Timestamp and server time, either way. */
const MAX_SKEW_SECONDS = 5 * 60;

const TIMESTAMP = /^\d{1,15}$/;
const SIGNATURE = /^v1=([0-9a-fA-F]{64})$/;

export interface SignedRequest {
  signature: string | undefined;
  timestamp: string | undefined;
  rawBody: Buffer;
}

/** "v1=" + hex HMAC-SHA256(secret, timestamp + "." + body): what a client sends as X-Signature. */
export function signPayload(secret: string, timestamp: string | number, body: string | Buffer): string {
  return `${SIGNATURE_SCHEME}=${digest(secret, String(timestamp), typeof body === 'string' ? Buffer.from(body) : body).toString('hex')}`;
}

function digest(secret: string, timestamp: string, body: Buffer): Buffer {
  return crypto.createHmac('sha256', secret).update(timestamp).update('.').update(body).digest();
}

/**
 * Throws SignatureError unless the request carries a well-formed, current and correct signature.
 * Checks in order: both headers present → timestamp within the skew → digest matches.
 */
export function verifySignature(secret: string, req: SignedRequest, nowSeconds: number): void {
  const signature = req.signature?.trim();
  const timestamp = req.timestamp?.trim();
  if (!signature || !timestamp) {
    const missing = [!signature && 'X-Signature', !timestamp && 'X-Timestamp'].filter(Boolean).join(' and ');
    throw new SignatureError('SIGNATURE_MISSING', `Missing ${missing} header`);
  }
  if (!TIMESTAMP.test(timestamp)) {
    throw new SignatureError('SIGNATURE_INVALID', 'X-Timestamp must be Unix time in whole seconds');
  }
  if (Math.abs(nowSeconds - Number(timestamp)) > MAX_SKEW_SECONDS) {
    throw new SignatureError('TIMESTAMP_OUT_OF_RANGE', 'X-Timestamp is more than 5 minutes from server time');
  }
  const m = SIGNATURE.exec(signature);
  if (!m) throw new SignatureError('SIGNATURE_INVALID', 'X-Signature must be v1=<64 hex digits>');
  const given = Buffer.from(m[1], 'hex');
  // Both sides are 32 bytes (the pattern fixes the length), as timingSafeEqual requires.
  if (!crypto.timingSafeEqual(given, digest(secret, timestamp, req.rawBody))) {
    throw new SignatureError('SIGNATURE_INVALID', 'X-Signature does not match the request body and X-Timestamp');
  }
}
