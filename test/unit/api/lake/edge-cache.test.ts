// The edge cache's bounds (api/lake/edge-cache.ts) over a real in-memory DuckDB: a slice is kept
// on its second request, and past maxSlices the least recently used one goes; every answer stays
// the slice's own rows whether it comes from a kept table or is computed again.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EdgeCache, type EdgeSlice } from '../../../../api/lake/edge-cache.js';

let instance: DuckDBInstance;
let conn: DuckDBConnection;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
  await conn.run(`CREATE TABLE src AS SELECT * FROM (VALUES ('a', 1), ('a', 2), ('b', 10)) AS t(k, cost)`);
});
afterAll(() => {
  conn.closeSync();
  instance.closeSync();
});

it('keeps a slice on its second request and, past maxSlices, lets the least recently used go', async () => {
  const edges = new EdgeCache(
    async () => conn,
    () => undefined,
    { maxSlices: 1, graceMs: 0 },
  );
  let computed = 0;
  const slice = (k: string): EdgeSlice => ({
    derivation: 'test',
    params: {},
    organizationId: 'org',
    start: new Date(0),
    end: new Date(3_600_000),
    files: [`${k}.parquet`],
  });
  const sum = async (k: string) => {
    const relation = await edges.relation(
      slice(k),
      async () => {
        computed++;
        return `(SELECT * FROM src WHERE k = $k)`;
      },
      { k },
    );
    const [row] = (await conn.runAndReadAll(`SELECT sum(cost)::INTEGER AS s FROM ${relation.replace('$k', `'${k}'`)} x`)).getRowObjects();
    return row!.s;
  };
  expect([await sum('a'), await sum('a')]).toEqual([3, 3]); // computed twice, kept by the second
  expect(edges.size).toEqual({ slices: 1, rows: 2 });
  expect(await sum('a')).toBe(3);
  expect(computed).toBe(2); // the third came from the kept table
  expect([await sum('b'), await sum('b')]).toEqual([10, 10]); // b kept: a, least recently used, goes
  expect(edges.size).toEqual({ slices: 1, rows: 1 });
  expect(await sum('a')).toBe(3);
  expect(computed).toBe(5); // a computed again
});
