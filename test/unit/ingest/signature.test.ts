import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SignatureError } from '../../../core/errors.js';
import { signPayload, verifySignature } from '../../../ingest/signature.js';

// Worked out with: printf '%s' '1700000000.{"idempotency_key":"k1"}' | openssl dgst -sha256 -hmac whsec_test
const SECRET = 'whsec_test';
const BODY = '{"idempotency_key":"k1"}';
const TS = '1700000000';
const EXPECTED = 'v1=67fe0a7311e47562776fcf86819be89da1a25777a181e9838139293dd5bf05f0';

function fault(fn: () => void): { code: string; message: string } | null {
  try {
    fn();
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(SignatureError);
    return { code: (err as SignatureError).code, message: (err as SignatureError).message };
  }
}

const verify = (signature: string | undefined, timestamp: string | undefined, body = BODY, now = 1_700_000_000) =>
  fault(() => verifySignature(SECRET, { signature, timestamp, rawBody: Buffer.from(body) }, now));

describe('signPayload', () => {
  it('is v1= + hex HMAC-SHA256(secret, timestamp + "." + body)', () => {
    expect(signPayload(SECRET, TS, BODY)).toBe(EXPECTED);
    expect(signPayload(SECRET, 1700000000, Buffer.from(BODY))).toBe(EXPECTED);
  });
});

// The vectors every SDK signs with (sdks/test-vectors/README.md), computed with openssl.
const VECTORS = (
  JSON.parse(readFileSync(new URL('../../../sdks/test-vectors/signing.json', import.meta.url), 'utf8')) as {
    vectors: { name: string; secret: string; timestamp: string; body: string; body_utf8_hex: string; signature: string }[];
  }
).vectors;

describe('shared SDK signing vectors', () => {
  it('there are vectors, non-ASCII bodies among them', () => {
    expect(VECTORS.length).toBeGreaterThanOrEqual(5);
    expect(VECTORS.some((v) => [...v.body].some((c) => c.codePointAt(0)! > 0x7f))).toBe(true);
  });

  it.each(VECTORS.map((v) => [v.name, v] as const))('%s: signPayload gives the header and verifySignature accepts it', (_, v) => {
    const rawBody = Buffer.from(v.body_utf8_hex, 'hex');
    expect(rawBody.toString('utf8')).toBe(v.body);
    expect(signPayload(v.secret, v.timestamp, v.body)).toBe(v.signature);
    expect(signPayload(v.secret, v.timestamp, rawBody)).toBe(v.signature);
    expect(
      fault(() => verifySignature(v.secret, { signature: v.signature, timestamp: v.timestamp, rawBody }, Number(v.timestamp))),
    ).toBeNull();
  });
});

describe('verifySignature', () => {
  it('accepts the right signature, upper-case hex too, within 5 minutes either way', () => {
    expect(verify(EXPECTED, TS)).toBeNull();
    expect(verify(`v1=${EXPECTED.slice(3).toUpperCase()}`, TS)).toBeNull();
    expect(verify(EXPECTED, TS, BODY, 1_700_000_300)).toBeNull();
    expect(verify(EXPECTED, TS, BODY, 1_699_999_700)).toBeNull();
  });

  it('missing headers are SIGNATURE_MISSING', () => {
    expect(verify(undefined, TS)).toEqual({ code: 'SIGNATURE_MISSING', message: 'Missing X-Signature header' });
    expect(verify(EXPECTED, undefined)).toEqual({ code: 'SIGNATURE_MISSING', message: 'Missing X-Timestamp header' });
    expect(verify('', '')).toEqual({ code: 'SIGNATURE_MISSING', message: 'Missing X-Signature and X-Timestamp header' });
  });

  it('a timestamp more than 300 s off is TIMESTAMP_OUT_OF_RANGE, checked before the digest', () => {
    expect(verify(EXPECTED, TS, BODY, 1_700_000_301)?.code).toBe('TIMESTAMP_OUT_OF_RANGE');
    expect(verify(EXPECTED, TS, BODY, 1_699_999_699)?.code).toBe('TIMESTAMP_OUT_OF_RANGE');
    expect(verify('v1=00', TS, BODY, 1_800_000_000)?.code).toBe('TIMESTAMP_OUT_OF_RANGE');
  });

  it('a changed body, timestamp, secret or malformed header is SIGNATURE_INVALID', () => {
    expect(verify(EXPECTED, TS, '{"idempotency_key":"k2"}')?.code).toBe('SIGNATURE_INVALID');
    expect(verify(EXPECTED, '1700000001')?.code).toBe('SIGNATURE_INVALID');
    expect(
      fault(() => verifySignature('other', { signature: EXPECTED, timestamp: TS, rawBody: Buffer.from(BODY) }, 1_700_000_000))?.code,
    ).toBe('SIGNATURE_INVALID');
    expect(verify(EXPECTED.slice(3), TS)?.code).toBe('SIGNATURE_INVALID'); // no scheme
    expect(verify(`v2=${EXPECTED.slice(3)}`, TS)?.code).toBe('SIGNATURE_INVALID');
    expect(verify(EXPECTED.slice(0, -2), TS)?.code).toBe('SIGNATURE_INVALID'); // short
    expect(verify(EXPECTED, '1700000000.5')?.code).toBe('SIGNATURE_INVALID');
    expect(verify(EXPECTED, '2023-11-14T22:13:20Z')?.code).toBe('SIGNATURE_INVALID');
  });
});
