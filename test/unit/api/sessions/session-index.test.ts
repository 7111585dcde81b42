import { describe, expect, it } from 'vitest';
import { sessionHash } from '../../../../api/sessions/session-index.js';

describe('sessionHash', () => {
  it('is FNV-1a 32-bit (reference values)', () => {
    // FNV-1a of "" is the offset basis; "a" → 0xe40c292c; "foobar" → 0xbf9cf968 (published test vectors).
    expect(sessionHash('')).toBe(0x811c9dc5);
    expect(sessionHash('a')).toBe(0xe40c292c);
    expect(sessionHash('foobar')).toBe(0xbf9cf968);
  });
});
