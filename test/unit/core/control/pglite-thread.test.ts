// PGlite on its worker thread keeps the in-process contract: exact numbers as strings, bytea as
// Buffer, SQLSTATE on errors, atomic transactions, one connection (others wait for a transaction).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlDb } from '../../../../core/control/db.js';
import { openPgliteThread } from '../../../../core/control/pglite-thread.js';

let db: ControlDb;
beforeAll(async () => {
  db = await openPgliteThread(null);
  await db.exec('CREATE TABLE t (id int PRIMARY KEY, n numeric, b bytea, at timestamptz, tags text[])');
});
afterAll(async () => {
  await db.close();
});

describe('openPgliteThread', () => {
  it('returns NUMERIC and INT8 as strings, bytea as Buffer, timestamptz as Date, arrays as arrays', async () => {
    const at = new Date('2026-01-15T10:30:00.123Z');
    await db.query('INSERT INTO t VALUES ($1, $2, $3, $4, $5)', [
      1,
      '12345678901234567890.000000000001',
      Buffer.from([0, 255, 7]),
      at,
      ['a', 'b,c'],
    ]);
    const [row] = await db.query<{ id: number; n: string; b: Buffer; at: Date; tags: string[]; big: string }>(
      'SELECT id, n, b, at, tags, 9007199254740993::int8 AS big FROM t WHERE id = 1',
    );
    expect(row).toEqual({
      id: 1,
      n: '12345678901234567890.000000000001',
      b: Buffer.from([0, 255, 7]),
      at,
      tags: ['a', 'b,c'],
      big: '9007199254740993',
    });
    expect(Buffer.isBuffer(row!.b)).toBe(true);
  });

  it('errors carry the SQLSTATE and constraint', async () => {
    const err = await db.query('INSERT INTO t (id) VALUES (1)').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ code: '23505', constraint: 't_pkey' });
  });

  it('a transaction that throws leaves nothing; one that returns commits', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES (2)');
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await db.query('SELECT id FROM t WHERE id = 2')).toEqual([]);
    expect(await db.transaction(async (tx) => (await tx.query<{ id: number }>('INSERT INTO t (id) VALUES (3) RETURNING id'))[0]!.id)).toBe(
      3,
    );
    // A transaction that runs no statement sends nothing.
    expect(await db.transaction(async () => 'nothing')).toBe('nothing');
  });

  it('queries wait for an open transaction instead of seeing its uncommitted rows', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const tx = db.transaction(async (t) => {
      await t.query('INSERT INTO t (id) VALUES (4)');
      await gate;
    });
    const outside = db.query<{ n: string }>('SELECT count(*)::text AS n FROM t WHERE id = 4');
    await new Promise((r) => setTimeout(r, 50));
    release();
    await tx;
    expect(await outside).toEqual([{ n: '1' }]);
  });
});
