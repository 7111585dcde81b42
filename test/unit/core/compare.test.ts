import { describe, expect, it } from 'vitest';
import { compareCodePoints } from '../../../core/compare.js';

describe('compareCodePoints', () => {
  it('orders like UTF-8 bytes (DuckDB, PostgreSQL C), not like UTF-16 code units', () => {
    const astral = '\u{1F600}'; // U+1F600, a surrogate pair in UTF-16
    const privateUse = '\uE000';
    expect(astral < privateUse).toBe(true); // what `<` says
    expect(compareCodePoints(astral, privateUse)).toBeGreaterThan(0); // what the code points say
    const values = ['b', astral, 'a', privateUse, 'ab', '', 'A', 'é'];
    const byBytes = [...values].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect([...values].sort(compareCodePoints)).toEqual(byBytes);
  });
  it('is zero only for equal strings, and a prefix sorts first', () => {
    expect(compareCodePoints('abc', 'abc')).toBe(0);
    expect(compareCodePoints('ab', 'abc')).toBeLessThan(0);
    expect(compareCodePoints('abd', 'abc')).toBeGreaterThan(0);
  });
});
