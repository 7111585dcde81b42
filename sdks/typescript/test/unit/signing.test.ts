import { describe, expect, it } from 'vitest';
import { sign, signatureHeaders } from '../../src/signing.js';
import { signingVectors } from '../support/vectors.js';

describe('signing (shared vectors)', () => {
  it('has vectors with non-ASCII bodies', () => {
    expect(signingVectors.length).toBeGreaterThanOrEqual(5);
    expect(signingVectors.some((v) => [...v.body].some((c) => c.codePointAt(0)! > 0x7f))).toBe(true);
  });

  it.each(signingVectors.map((v) => [v.name, v] as const))('%s', (_, v) => {
    expect(Buffer.from(v.body, 'utf8').toString('hex')).toBe(v.body_utf8_hex);
    expect(sign(v.secret, v.timestamp, v.body)).toBe(v.signature);
    expect(sign(v.secret, Number(v.timestamp), Buffer.from(v.body_utf8_hex, 'hex'))).toBe(v.signature);
  });

  it('signatureHeaders stamps Unix seconds and signs with them', () => {
    const v = signingVectors[0]!;
    const headers = signatureHeaders(v.secret, v.body, Number(v.timestamp) * 1000 + 999);
    expect(headers).toEqual({ 'X-Timestamp': v.timestamp, 'X-Signature': v.signature });
  });
});
