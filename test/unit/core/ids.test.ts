// The hand-rolled UUIDv5 against the RFC's published example and the `uuid` package.
import crypto from 'node:crypto';
import { v5 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { endUserIdFor, eventIdFor, uuidV5 } from '../../../core/ids.js';

const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

describe('uuidV5', () => {
  it('gives the RFC 9562 example (www.example.com in the DNS namespace)', () => {
    expect(uuidV5('www.example.com', DNS_NAMESPACE)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('matches the uuid package for ASCII, multi-byte UTF-8, empty and long names, and upper-case namespaces', () => {
    const names = ['', 'k', 'evt-000001', 'ключ-идемпотентности', '😀 emoji key', 'x'.repeat(255), 'end-user:user_42'];
    for (let i = 0; i < 20; i++) {
      const ns = crypto.randomUUID();
      for (const name of names) {
        expect(uuidV5(name, ns)).toBe(v5(name, ns));
        expect(uuidV5(name, ns.toUpperCase())).toBe(v5(name, ns));
      }
    }
  });

  it('rejects a namespace that is not a UUID', () => {
    expect(() => uuidV5('k', 'not-a-uuid')).toThrow(TypeError);
    expect(() => uuidV5('k', '')).toThrow(TypeError);
  });

  it('derives event and end-user ids as the spec says', () => {
    const org = '0b0e7a0c-7a6e-4c55-9a2a-2b8f0d1f3c44';
    expect(eventIdFor(org, 'req-1')).toBe(v5('req-1', org));
    expect(endUserIdFor(org, 'user_1')).toBe(v5('end-user:user_1', org));
    // Remembered ids stay per organization and per user.
    expect(endUserIdFor(org, 'user_1')).toBe(v5('end-user:user_1', org));
    expect(endUserIdFor(org, 'user_2')).toBe(v5('end-user:user_2', org));
    const other = '5d8f4a4e-0c1b-4f7e-8a53-7f3f0f6a9b21';
    expect(endUserIdFor(other, 'user_1')).toBe(v5('end-user:user_1', other));
  });
});
