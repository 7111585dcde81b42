import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../core/config.js';
import {
  apiKeyDisplayPrefix,
  decryptSecret,
  encryptSecret,
  generateApiKey,
  generateMasterKey,
  generateSigningSecret,
  hashApiKey,
  parseMasterKey,
  SecretDecryptionError,
  sealSecret,
  unsealSecret,
} from '../../../../core/auth/secrets.js';

const KEY_HEX = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
const KEY = Buffer.from(KEY_HEX, 'hex');

describe('API keys', () => {
  it('are mk_live_ + 32 random bytes in base64url', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^mk_live_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice('mk_live_'.length), 'base64url')).toHaveLength(32);
    expect(generateApiKey()).not.toBe(key);
  });

  it('hash to lowercase SHA-256 hex (known vector)', () => {
    // sha256("abc") from FIPS 180-2, appendix B.1.
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('show only a short prefix', () => {
    expect(apiKeyDisplayPrefix('mk_live_AbCdEfGhIjKl')).toBe('mk_live_AbCdEf');
  });
});

describe('signing secrets and master keys', () => {
  it('signing secret is mks_ + 32 bytes base64url', () => {
    expect(generateSigningSecret()).toMatch(/^mks_[A-Za-z0-9_-]{43}$/);
  });

  it('generated master key parses back to 32 bytes', () => {
    const hex = generateMasterKey();
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    expect(parseMasterKey(hex).toString('hex')).toBe(hex);
  });

  it('parses hex, base64 and base64url of 32 bytes to the same key', () => {
    expect(parseMasterKey(KEY_HEX).equals(KEY)).toBe(true);
    expect(parseMasterKey(KEY_HEX.toUpperCase()).equals(KEY)).toBe(true);
    // 00..1f in base64, written out: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
    expect(parseMasterKey('AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=').equals(KEY)).toBe(true);
    expect(parseMasterKey('AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8').equals(KEY)).toBe(true);
    const ff = Buffer.alloc(32, 0xfb);
    expect(parseMasterKey(ff.toString('base64url')).equals(ff)).toBe(true);
    expect(parseMasterKey(`  ${KEY_HEX}\n`).equals(KEY)).toBe(true);
  });

  it('rejects anything else with a clear error that does not echo the value', () => {
    for (const bad of [
      '',
      'abc',
      KEY_HEX.slice(2),
      crypto.randomBytes(31).toString('base64'),
      crypto.randomBytes(33).toString('base64'),
      'not a key at all!!',
    ]) {
      expect(() => parseMasterKey(bad)).toThrow(ConfigError);
    }
    const secretish = `zz${KEY_HEX.slice(2)}`;
    try {
      parseMasterKey(secretish);
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).toMatch(/MARGINAL_MASTER_KEY must be 32 bytes/);
      expect((e as Error).message).not.toContain(secretish);
    }
  });
});

describe('AES-256-GCM', () => {
  it('round-trips and uses a fresh 12-byte IV each time', () => {
    const a = encryptSecret(KEY, 'mks_secret');
    const b = encryptSecret(KEY, 'mks_secret');
    expect(a.iv).toHaveLength(12);
    expect(a.tag).toHaveLength(16);
    expect(a.ciphertext).toHaveLength('mks_secret'.length);
    expect(a.iv.equals(b.iv)).toBe(false);
    expect(decryptSecret(KEY, a)).toBe('mks_secret');
    expect(decryptSecret(KEY, b)).toBe('mks_secret');
  });

  it('matches an independent AES-256-GCM computation', () => {
    const e = encryptSecret(KEY, 'hello');
    const c = crypto.createCipheriv('aes-256-gcm', KEY, e.iv);
    const expected = Buffer.concat([c.update('hello'), c.final()]);
    expect(e.ciphertext.equals(expected)).toBe(true);
    expect(e.tag.equals(c.getAuthTag())).toBe(true);
  });

  it('detects a flipped bit in ciphertext, tag or IV', () => {
    const e = encryptSecret(KEY, 'mks_abcdefgh');
    const flip = (b: Buffer, i: number) => {
      const c = Buffer.from(b);
      c[i] = c[i]! ^ 0x01;
      return c;
    };
    expect(() => decryptSecret(KEY, { ...e, ciphertext: flip(e.ciphertext, 3) })).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(KEY, { ...e, tag: flip(e.tag, 15) })).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(KEY, { ...e, iv: flip(e.iv, 0) })).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(KEY, { ...e, tag: e.tag.subarray(0, 8) })).toThrow(SecretDecryptionError);
  });

  it('fails with the wrong key', () => {
    const e = encryptSecret(KEY, 'mks_abcdefgh');
    const other = Buffer.alloc(32, 7);
    expect(() => decryptSecret(other, e)).toThrow(SecretDecryptionError);
  });

  it('binds associated data: another row id does not decrypt', () => {
    const e = encryptSecret(KEY, 's', 'api_key:1');
    expect(decryptSecret(KEY, e, 'api_key:1')).toBe('s');
    expect(() => decryptSecret(KEY, e, 'api_key:2')).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(KEY, e)).toThrow(SecretDecryptionError);
  });

  it('rejects a master key of the wrong length', () => {
    expect(() => encryptSecret(Buffer.alloc(16), 'x')).toThrow(/32 bytes/);
  });

  it('sealed string form round-trips and detects tampering', () => {
    const sealed = sealSecret(KEY, 'sk_test_123', 'stripe');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(unsealSecret(KEY, sealed, 'stripe')).toBe('sk_test_123');
    const parts = sealed.split('.');
    const ct = Buffer.from(parts[3]!, 'base64url');
    ct[0] = ct[0]! ^ 0x80;
    parts[3] = ct.toString('base64url');
    expect(() => unsealSecret(KEY, parts.join('.'), 'stripe')).toThrow(SecretDecryptionError);
    expect(() => unsealSecret(KEY, 'garbage', 'stripe')).toThrow(SecretDecryptionError);
  });
});
