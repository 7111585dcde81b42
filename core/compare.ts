// The one string order of the project: Unicode code points, which is also how DuckDB (UTF-8 bytes)
// and PostgreSQL's "C" collation sort, so an order computed in TypeScript agrees with one computed
// in SQL. JavaScript's `<` compares UTF-16 code units instead, which puts characters above U+FFFF
// (surrogate pairs) before U+E000–U+FFFF.

/** Negative, zero or positive as `a` sorts before, with or after `b` in code-point order. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    // A surrogate starts a code point above U+FFFF, after every unit that is not one.
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
