// The control plane over a MessagePort gives the same values and errors as the database itself:
// rows and parameters, NUMERIC and INT8 as exact strings, bytea as Buffer, timestamptz as Date,
// SQLSTATE fields on errors, exec scripts. Real PGlite on its thread answering a port from
// connectPort() directly (messages are structured-cloned exactly as between threads).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryableOverPort } from '../../../../core/control/db-port.js';
import { openControlDb, type ControlDb, type Queryable } from '../../../../core/control/db.js';

let db: ControlDb;
let remote: Queryable & { close(): void };

beforeAll(async () => {
  db = await openControlDb({ databaseUrl: null, pgliteDir: null });
  remote = queryableOverPort(db.connectPort!());
});
afterAll(async () => {
  remote.close();
  await db.close();
});

describe('queryableOverPort', () => {
  it('exec runs a script of several statements', async () => {
    await remote.exec(`
      CREATE TABLE t (id int PRIMARY KEY, name text, n numeric, big int8, b bytea, at timestamptz, doc jsonb);
      CREATE TABLE u (id int);
    `);
    const tables = await db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    expect(tables.map((t) => t.table_name)).toEqual(['t', 'u']);
  });

  it('passes parameters and returns rows with exact numbers, Buffers and Dates', async () => {
    const at = new Date('2026-03-01T12:34:56.789Z');
    const bytes = Buffer.from([0, 1, 254, 255]);
    const inserted = await remote.query<{ id: number }>('INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id', [
      1,
      'first',
      '12345678901234567890.123456789012',
      '9007199254740993',
      bytes,
      at,
      { k: ['v', 2] },
    ]);
    expect(inserted).toEqual([{ id: 1 }]);

    const [row] = await remote.query<Record<string, unknown>>('SELECT * FROM t WHERE id = $1', [1]);
    expect(row).toEqual({
      id: 1,
      name: 'first',
      n: '12345678901234567890.123456789012',
      big: '9007199254740993',
      b: bytes,
      at,
      doc: { k: ['v', 2] },
    });
    expect(Buffer.isBuffer(row!.b)).toBe(true);
    expect(row!.at).toBeInstanceOf(Date);
  });

  it('a Buffer parameter arrives as bytea, not as an array', async () => {
    const [row] = await remote.query<{ hex: string }>("SELECT encode($1::bytea, 'hex') AS hex", [Buffer.from('AZ')]);
    expect(row).toEqual({ hex: '415a' });
  });

  it('returns an empty list when nothing matches', async () => {
    expect(await remote.query('SELECT * FROM t WHERE id = $1', [404])).toEqual([]);
  });

  it('a unique violation carries SQLSTATE 23505, the constraint and the detail', async () => {
    const err = await remote.query('INSERT INTO t (id) VALUES ($1)', [1]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({
      message: 'duplicate key value violates unique constraint "t_pkey"',
      code: '23505',
      constraint: 't_pkey',
      detail: 'Key (id)=(1) already exists.',
    });
  });

  it('a syntax error carries SQLSTATE 42601, from query and from exec', async () => {
    await expect(remote.query('SELEC 1')).rejects.toMatchObject({ code: '42601' });
    await expect(remote.exec('CREATE TABLE ;')).rejects.toMatchObject({ code: '42601' });
  });

  it('concurrent statements each get their own answer', async () => {
    const answers = await Promise.all([1, 2, 3, 4, 5].map((i) => remote.query<{ v: number }>('SELECT $1::int * 10 AS v', [i])));
    expect(answers).toEqual([[{ v: 10 }], [{ v: 20 }], [{ v: 30 }], [{ v: 40 }], [{ v: 50 }]]);
  });

  it('after close, statements fail instead of waiting forever', async () => {
    const q = queryableOverPort(db.connectPort!());
    expect(await q.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    q.close();
    await expect(q.query('SELECT 1')).rejects.toThrow('the control-plane port is closed');
  });

  it("never runs inside another client's transaction: it waits for the COMMIT, then sees the rows", async () => {
    await db.exec('CREATE TABLE tx_probe (id int)');
    let seenDuring: number | null = null;
    let remoteDone = false;
    let during: Promise<void> = Promise.resolve();
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO tx_probe VALUES (1)');
      // Sent while the transaction is open: it must not run in it (it would see row 1 only) nor be lost.
      during = remote.query<{ n: string }>('SELECT count(*)::text AS n FROM tx_probe').then((r) => {
        remoteDone = true;
        seenDuring = Number(r[0]!.n);
      });
      await new Promise((r) => setTimeout(r, 50));
      expect(remoteDone).toBe(false);
      await tx.query('INSERT INTO tx_probe VALUES (2)');
    });
    await during;
    expect(seenDuring).toBe(2);
  });

  it("a rolled-back transaction releases the connection to the port's statements", async () => {
    await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO tx_probe VALUES (3)');
        throw new Error('give up');
      })
      .catch(() => undefined);
    expect(await remote.query<{ n: string }>('SELECT count(*)::text AS n FROM tx_probe')).toEqual([{ n: '2' }]);
  });
});
