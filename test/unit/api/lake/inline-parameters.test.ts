import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { inlineParameters, sqlLiteral } from '../../../../api/lake/inline-parameters.js';

describe('inlineParameters', () => {
  it('writes each named parameter as a literal of its bound type', () => {
    expect(sqlLiteral("o'brien")).toBe("'o''brien'");
    expect(sqlLiteral(101)).toBe('CAST(101 AS BIGINT)');
    expect(sqlLiteral(1.5)).toBe('CAST(1.5 AS DOUBLE)');
    expect(sqlLiteral(true)).toBe('TRUE');
    expect(sqlLiteral(null)).toBe('NULL');
    expect(sqlLiteral("a\u0000'b\u0000")).toBe(`('a' || chr(0) || '''b' || chr(0) || '')`);
    expect(sqlLiteral(new Date('2025-03-10T06:30:00.001Z'))).toBe("TIMESTAMP '2025-03-10T06:30:00.001Z'");
    expect(() => sqlLiteral(Number.NaN)).toThrow();
  });

  it('leaves $name inside quoted strings and identifiers, and names it was not given', () => {
    const sql = `SELECT '$org', "$org", 'it''s $org', $org, $orgs, $other FROM t WHERE a = $org`;
    expect(inlineParameters(sql, { org: 'x', orgs: 7 })).toBe(
      `SELECT '$org', "$org", 'it''s $org', 'x', CAST(7 AS BIGINT), $other FROM t WHERE a = 'x'`,
    );
  });

  it('gives DuckDB the same answer as bound parameters', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      const sql = `SELECT $s AS s, $n + 1 AS n, $f * 2 AS f, $b AS b, $t + INTERVAL 1 HOUR AS t, CAST('2025-03-10' AS DATE) >= $d AS d, (SELECT x FROM range(10) r(x) LIMIT $lim OFFSET 2) AS l`;
      const values = { s: "a'b$c\u0000d'", n: 41, f: 0.25, b: false, t: new Date('2025-03-10T23:30:00Z'), d: '2025-03-09', lim: 1 };
      const { timestampValue } = await import('@duckdb/node-api');
      const bound = await conn.runAndReadAll(sql, { ...values, n: 41n, lim: 1n, t: timestampValue(BigInt(values.t.getTime()) * 1000n) });
      const inlined = await conn.runAndReadAll(inlineParameters(sql, values));
      expect(inlined.getRowObjectsJson()).toEqual(bound.getRowObjectsJson());
      expect(inlined.getRowObjectsJson()).toEqual([
        { s: "a'b$c\u0000d'", n: '42', f: 0.5, b: false, t: '2025-03-11 00:30:00', d: true, l: '2' },
      ]);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });
});
