// Row projections (api/lake/row-projection.ts) over a real in-memory DuckDB: each selection reads
// exactly its rows, and selections taken from request text (filter values matching nothing) cannot
// pile up: past maxSelections the projection starts over in a new table.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RowProjections } from '../../../../api/lake/row-projection.js';

let instance: DuckDBInstance;
let conn: DuckDBConnection;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
  // Day 1: a×2, b×1; day 2: a×1, and a value holding a NUL.
  await conn.run(
    `CREATE TABLE src AS SELECT * FROM (VALUES (1, 'a', 10), (1, 'a', 20), (1, 'b', 5), (2, 'a', 7), (2, 'x' || chr(0) || 'y', 3)) AS t(_day, filter_value, cost)`,
  );
});
afterAll(() => {
  conn.closeSync();
  instance.closeSync();
});

describe('RowProjections', () => {
  it('answers each selection with its own rows and starts over past maxSelections', async () => {
    const projections = new RowProjections(
      async () => conn,
      () => undefined,
      { maxSelections: 3, graceMs: 0 },
    );
    const sum = async (value: string) => {
      const relation = await projections.relation('src', { column: 'filter_value', value }, [1, 2], () => true);
      const [row] = (
        await conn.runAndReadAll(`SELECT coalesce(sum(cost), 0)::INTEGER AS s, count(*)::INTEGER AS n FROM (${relation})`)
      ).getRowObjects();
      // The projection table the relation reads.
      return { ...(row as { s: number; n: number }), t: /FROM (\S+)/.exec(relation)![1] };
    };
    const a = await sum('a');
    expect([a.s, a.n]).toEqual([37, 3]);
    expect((await sum('b')).s).toBe(5);
    expect((await sum('x\u0000y')).s).toBe(3); // NUL reaches DuckDB as chr(0) (sqlStringLiteral)
    expect((await sum('a')).t).toBe(a.t); // 3 selections: still the first table
    expect((await sum('nothing')).n).toBe(0); // a 4th: the projection starts over
    const again = await sum('a');
    expect([again.s, again.n]).toEqual([37, 3]);
    expect(again.t).not.toBe(a.t);
  });
});
