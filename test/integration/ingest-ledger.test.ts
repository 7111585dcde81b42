// The idempotency ledger's storage (ingest/ingest-ledger.store.ts) against a real control plane,
// PGlite and PostgreSQL alike: reservation groups, their blobs and members, moves of keys
// reserved elsewhere, the sweeper's reads, marks, releases and discards.
import crypto from 'node:crypto';
import { expect, it } from 'vitest';
import { getCreditBalance, grantCredits, spendCredits } from '../../core/control/credits.js';
import type { Queryable } from '../../core/control/db.js';
import {
  beginIngestGroup,
  discardReservations,
  IngestGroupIds,
  reserveAndSpend,
  listGroupRecords,
  listStrandedGroups,
  markGroupsPublished,
  releaseReservations,
  reserveEvents,
  writeIngestGroup,
  type IngestGroup,
  type Reservation,
  type ReservationInput,
} from '../../ingest/ingest-ledger.store.js';
import { getLedgerDetails, getLedgerEntries } from '../support/ledger-reads.js';
import { createOrganization } from '../../core/control/organizations.js';
import { eventIdFor } from '../../core/ids.js';
import { describeEachControlDb } from '../support/control-db.js';

const keysOf = (records: Array<{ idempotencyKey: string }>) => records.map((r) => r.idempotencyKey);

function reservation(orgId: string, key: string, payload = Buffer.from(key)): ReservationInput {
  return { idempotencyKey: key, eventId: eventIdFor(orgId, key), payload, flagReason: null };
}

describeEachControlDb('ingest ledger', ({ kind, db }) => {
  /** One reservation transaction as the group committer runs it: its own group, written at the end. */
  async function reserveGroup(
    orgId: string,
    rows: ReservationInput[],
    inTx: (tx: Queryable, group: IngestGroup, reserved: Reservation[]) => Promise<void> = async () => undefined,
  ): Promise<{ groupId: string; written: boolean; reserved: Reservation[] }> {
    return db().transaction(async (tx) => {
      const group = await beginIngestGroup(tx);
      const reserved = await reserveEvents(tx, group, orgId, rows);
      await inTx(tx, group, reserved);
      return { groupId: group.id, written: await writeIngestGroup(tx, group), reserved };
    });
  }

  async function groupRow(id: string) {
    const [row] = await db().query<{ published: boolean; payloads: Buffer | null; members: string | null }>(
      'SELECT published_at IS NOT NULL AS published, payloads, members FROM ingest_groups WHERE id = $1::bigint',
      [id],
    );
    return row;
  }

  it('reserves new keys once; a repeated key returns the existing event id and state', async () => {
    const org = await createOrganization(db(), { name: 'Ledger' });
    // Keys with characters that array literals and JSON must escape.
    const keys = ['k1', 'a,b', 'q"uote', 'back\\slash', '{brace}', 'NULL', ' sp ', 'new\nline'];
    const first = await reserveGroup(
      org.id,
      keys.map((k) => reservation(org.id, k)),
    );
    expect(first.reserved.map((r) => [r.idempotencyKey, r.isNew, r.state])).toEqual(keys.map((k) => [k, true, 'reserved']));
    expect(first.reserved[1]!.eventId).toBe(eventIdFor(org.id, 'a,b'));
    expect(first.reserved[2]!.payload).toEqual(Buffer.from('q"uote'));
    expect(first.written).toBe(true);

    // Same key again with a different payload and event id: the stored row wins, nothing is added.
    // k1 was reserved in the first group: it moves into this one, with its stored record.
    const again = await reserveGroup(org.id, [
      { idempotencyKey: 'k1', eventId: crypto.randomUUID(), payload: Buffer.from('other'), flagReason: 'x' },
      reservation(org.id, 'k2'),
      reservation(org.id, 'k2'),
    ]);
    expect(again.reserved).toEqual([
      {
        idempotencyKey: 'k1',
        eventId: eventIdFor(org.id, 'k1'),
        isNew: false,
        state: 'reserved',
        flagReason: null,
        payload: Buffer.from('k1'),
      },
      {
        idempotencyKey: 'k2',
        eventId: eventIdFor(org.id, 'k2'),
        isNew: true,
        state: 'reserved',
        flagReason: null,
        payload: Buffer.from('k2'),
      },
      {
        idempotencyKey: 'k2',
        eventId: eventIdFor(org.id, 'k2'),
        isNew: false,
        state: 'reserved',
        flagReason: null,
        payload: Buffer.from('k2'),
      },
    ]);
    const [count] = await db().query<{ n: string }>('SELECT count(*) AS n FROM ingest_ledger WHERE organization_id = $1', [org.id]);
    expect(count!.n).toBe(String(keys.length + 1));

    // One mark publishes the second group: k1 and k2; the first group's other keys stay reserved.
    expect(await markGroupsPublished(db(), [again.groupId])).toBe(1);
    expect(await markGroupsPublished(db(), [again.groupId])).toBe(0);
    const third = await reserveGroup(org.id, [reservation(org.id, 'k1')]);
    expect(third.reserved).toEqual([
      { idempotencyKey: 'k1', eventId: eventIdFor(org.id, 'k1'), isNew: false, state: 'published', flagReason: null, payload: null },
    ]);
    // Nothing referenced the third group: no row was written for it.
    expect(third.written).toBe(false);
    expect(await groupRow(third.groupId)).toBeUndefined();

    const entries = await getLedgerEntries(db(), org.id, ['k1', 'k2', 'a,b', 'missing']);
    expect([...entries.entries()].sort()).toEqual([
      ['a,b', { eventId: eventIdFor(org.id, 'a,b'), state: 'reserved' }],
      ['k1', { eventId: eventIdFor(org.id, 'k1'), state: 'published' }],
      ['k2', { eventId: eventIdFor(org.id, 'k2'), state: 'published' }],
    ]);
  });

  it('a group may hold several organizations; the same key in another organization is a different row', async () => {
    const a = await createOrganization(db(), { name: 'A' });
    const b = await createOrganization(db(), { name: 'B' });
    const { groupId } = await reserveGroup(a.id, [reservation(a.id, 'same')], async (tx, group) => {
      const rb = await reserveEvents(tx, group, b.id, [
        reservation(b.id, 'same', Buffer.from('bee')),
        reservation(b.id, 'empty', Buffer.alloc(0)),
      ]);
      expect(rb[0]).toMatchObject({ isNew: true, eventId: eventIdFor(b.id, 'same') });
    });
    const details = await getLedgerDetails(db(), b.id, ['same', 'empty']);
    expect(details.get('same')).toEqual({
      eventId: eventIdFor(b.id, 'same'),
      state: 'reserved',
      flagReason: null,
      payload: Buffer.from('bee'),
    });
    expect(details.get('empty')!.payload).toEqual(Buffer.alloc(0));
    expect((await getLedgerDetails(db(), a.id, ['same'])).get('same')!.payload).toEqual(Buffer.from('same'));

    // One mark covers both organizations' rows and drops the blob.
    expect(await markGroupsPublished(db(), [groupId, groupId])).toBe(1);
    expect((await getLedgerEntries(db(), b.id, ['same', 'empty'])).get('empty')?.state).toBe('published');
    expect((await getLedgerDetails(db(), a.id, ['same'])).get('same')).toEqual({
      eventId: eventIdFor(a.id, 'same'),
      state: 'published',
      flagReason: null,
      payload: null,
    });
    expect(await groupRow(groupId)).toEqual({ published: true, payloads: null, members: null });
  });

  it('concurrent transactions reserving the same key: exactly one sees it as new and spends; the row ends in one group', async () => {
    const org = await createOrganization(db(), { name: 'Concurrent' });
    await grantCredits(db(), org.id, 100);
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        reserveGroup(org.id, [reservation(org.id, 'dup', Buffer.from([i]))], async (tx, _group, [r]) => {
          if (r!.isNew) expect((await spendCredits(tx, org.id, 1)).ok).toBe(true);
        }),
      ),
    );
    expect(outcomes.filter((o) => o.reserved[0]!.isNew)).toHaveLength(1);
    expect(new Set(outcomes.map((o) => o.reserved[0]!.eventId))).toEqual(new Set([eventIdFor(org.id, 'dup')]));
    // Every transaction publishes the winner's record.
    const winner = outcomes.find((o) => o.reserved[0]!.isNew)!.reserved[0]!.payload!;
    expect(outcomes.map((o) => o.reserved[0]!.payload)).toEqual(outcomes.map(() => winner));
    expect(await getCreditBalance(db(), org.id)).toBe(99);
    const [count] = await db().query<{ n: string }>('SELECT count(*) AS n FROM ingest_ledger WHERE organization_id = $1', [org.id]);
    expect(count!.n).toBe('1');
    // Moved from group to group, the row is a record of exactly one of them.
    const records = await listGroupRecords(
      db(),
      outcomes.map((o) => o.groupId),
    );
    expect(records.map((r) => [r.idempotencyKey, r.payload])).toEqual([['dup', winner]]);
  });

  it('concurrent groups over the same keys, some reserved in a stranded group: no deadlock, one credit and one group per key', async () => {
    const orgs = [await createOrganization(db(), { name: 'Lock A' }), await createOrganization(db(), { name: 'Lock B' })];
    const orgIds = orgs.map((o) => o.id).sort();
    for (const id of orgIds) await grantCredits(db(), id, 1000);
    const keys = Array.from({ length: 600 }, (_, i) => `lk-${String(i).padStart(3, '0')}`);
    // A dead process's group holds every other key of both organizations.
    const stranded = await reserveGroup(
      orgIds[0]!,
      keys.filter((_, i) => i % 2 === 0).map((k) => reservation(orgIds[0]!, k)),
      async (tx, group) => {
        await reserveEvents(
          tx,
          group,
          orgIds[1]!,
          keys.filter((_, i) => i % 2 === 0).map((k) => reservation(orgIds[1]!, k)),
        );
        for (const id of orgIds) await spendCredits(tx, id, 300);
      },
    );
    // Six transactions over all keys, organizations in order (as the group committer runs them);
    // on PostgreSQL they run at once on separate connections.
    // Half of them take the keys in ascending order, half in descending: without one lock order
    // they would meet in the middle, each waiting for the other.
    const orders = Array.from({ length: 6 }, (_, t) => (t % 2 === 0 ? [...keys] : [...keys].reverse()));
    const inputs = orders.map((order) => orgIds.map((id) => order.map((k) => reservation(id, k))));
    // Six open connections first, so the transactions below start together instead of one per connect.
    if (kind === 'postgres') await Promise.all(Array.from({ length: 6 }, () => db().query('SELECT pg_sleep(0.05)')));
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, t) =>
        db().transaction(async (tx) => {
          const group = await beginIngestGroup(tx);
          let fresh = 0;
          for (const [o, id] of orgIds.entries()) {
            const r = await reserveEvents(tx, group, id, inputs[t]![o]!);
            const n = r.filter((x) => x.isNew).length;
            if (n > 0) expect((await spendCredits(tx, id, n)).ok).toBe(true);
            fresh += n;
          }
          await writeIngestGroup(tx, group);
          return { groupId: group.id, fresh };
        }),
      ),
    );
    // The 600 odd keys (300 per organization) were new exactly once.
    expect(results.reduce((n, r) => n + r.fresh, 0)).toBe(600);
    for (const id of orgIds) expect(await getCreditBalance(db(), id)).toBe(1000 - 600);
    // Every key of both organizations is a record of exactly one group.
    const records = await listGroupRecords(db(), [stranded.groupId, ...results.map((r) => r.groupId)]);
    expect(records.map((r) => `${r.organizationId}/${r.idempotencyKey}`).sort()).toEqual(
      orgIds.flatMap((id) => keys.map((k) => `${id}/${k}`)).sort(),
    );
    for (const r of records) expect(r.payload).toEqual(Buffer.from(r.idempotencyKey));
  });

  it('a key reserved in another group moves into ours with its record: our one mark covers it, the old group no longer lists it', async () => {
    const org = await createOrganization(db(), { name: 'Move' });
    const old = await reserveGroup(org.id, [
      { ...reservation(org.id, 'm1', Buffer.from('one')), flagReason: 'timestamp_too_old' },
      reservation(org.id, 'm2', Buffer.from('two')),
    ]);
    const ours = await reserveGroup(org.id, [
      { ...reservation(org.id, 'm1', Buffer.from('retry body')), flagReason: null },
      reservation(org.id, 'm3', Buffer.from('three')),
    ]);
    expect(ours.reserved[0]).toEqual({
      idempotencyKey: 'm1',
      eventId: eventIdFor(org.id, 'm1'),
      isNew: false,
      state: 'reserved',
      flagReason: 'timestamp_too_old',
      payload: Buffer.from('one'),
    });
    expect((await listGroupRecords(db(), [old.groupId])).map((r) => [r.idempotencyKey, r.payload.toString()])).toEqual([['m2', 'two']]);
    expect((await listGroupRecords(db(), [ours.groupId])).map((r) => [r.idempotencyKey, r.payload.toString(), r.flagReason])).toEqual([
      ['m3', 'three', null],
      ['m1', 'one', 'timestamp_too_old'],
    ]);
    await markGroupsPublished(db(), [ours.groupId]);
    const entries = await getLedgerEntries(db(), org.id, ['m1', 'm2', 'm3']);
    expect([...entries].map(([k, e]) => [k, e.state]).sort()).toEqual([
      ['m1', 'published'],
      ['m2', 'reserved'],
      ['m3', 'published'],
    ]);
    expect(await listGroupRecords(db(), [ours.groupId])).toEqual([]);
  });

  it('a rolled-back reservation leaves no row, no group and no spent credit', async () => {
    const org = await createOrganization(db(), { name: 'Rollback' });
    await grantCredits(db(), org.id, 1);
    let groupId = '';
    await expect(
      reserveGroup(org.id, [reservation(org.id, 'r')], async (tx, group) => {
        groupId = group.id;
        await spendCredits(tx, org.id, 1);
        await writeIngestGroup(tx, group);
        throw new Error('publish failed before commit');
      }),
    ).rejects.toThrow('publish failed');
    expect(await getCreditBalance(db(), org.id)).toBe(1);
    expect((await getLedgerEntries(db(), org.id, ['r'])).size).toBe(0);
    expect(await groupRow(groupId)).toBeUndefined();
  });

  it('rows that could not be paid are deleted; their bytes stay in the blob unreferenced', async () => {
    const org = await createOrganization(db(), { name: 'Partial402' });
    const partly = await reserveGroup(
      org.id,
      ['d1', 'd2', 'd3'].map((k) => reservation(org.id, k)),
      async (tx, group) => {
        expect(await discardReservations(tx, group, org.id, ['d3', 'd2', 'd2'])).toBe(2);
      },
    );
    expect([...(await getLedgerEntries(db(), org.id, ['d1', 'd2', 'd3'])).keys()]).toEqual(['d1']);
    expect((await listGroupRecords(db(), [partly.groupId])).map((r) => [r.idempotencyKey, r.payload.toString()])).toEqual([['d1', 'd1']]);
    const row = await groupRow(partly.groupId);
    expect(row!.payloads).toEqual(Buffer.from('d1d2d3'));
    expect(JSON.parse(row!.members!)).toEqual([{ organization_id: org.id, idempotency_keys: ['d1'] }]);

    // None paid: nothing references the group, so it is not written.
    const none = await reserveGroup(org.id, [reservation(org.id, 'd4')], async (tx, group) => {
      await discardReservations(tx, group, org.id, ['d4']);
    });
    expect(none.written).toBe(false);
    expect(await groupRow(none.groupId)).toBeUndefined();
  });

  it('records come back as Buffers with the same bytes; stranded groups are listed oldest first, in-flight ones skipped', async () => {
    const org = await createOrganization(db(), { name: 'Sweeper' });
    const bytes = Buffer.from([0, 0, 0, 0, 1, 0xff, 0x00, 0x7f]);
    const g1 = await reserveGroup(org.id, [{ ...reservation(org.id, 's1', bytes), flagReason: 'timestamp_too_old' }]);
    const g2 = await reserveGroup(org.id, [reservation(org.id, 's2'), reservation(org.id, 's3')]);
    const g3 = await reserveGroup(org.id, [reservation(org.id, 's4')]);
    await markGroupsPublished(db(), [g3.groupId]);
    // Age the groups so their order is known; the sweeper only takes groups older than its cutoff.
    await db().query(
      `UPDATE ingest_groups SET created_at = now() - CASE id WHEN $1::bigint THEN interval '3 minutes' ELSE interval '2 minutes' END
        WHERE id = ANY($2::bigint[])`,
      [g1.groupId, [g1.groupId, g2.groupId, g3.groupId]],
    );
    const mine = new Set([g1.groupId, g2.groupId, g3.groupId]);
    const cutoff = new Date(Date.now() - 60_000);
    const stranded = (await listStrandedGroups(db(), cutoff, 100)).filter((g) => mine.has(g.id));
    expect(stranded.map((g) => g.id)).toEqual([g1.groupId, g2.groupId]);
    expect(stranded[0]!.createdAt).toBeInstanceOf(Date);
    expect((await listStrandedGroups(db(), cutoff, 100, [g1.groupId])).filter((g) => mine.has(g.id)).map((g) => g.id)).toEqual([
      g2.groupId,
    ]);
    expect((await listStrandedGroups(db(), new Date(Date.now() - 10 * 60_000), 100)).filter((g) => mine.has(g.id))).toEqual([]);
    expect(await listStrandedGroups(db(), cutoff, 1)).toHaveLength(1);

    const records = await listGroupRecords(db(), [g2.groupId, g1.groupId, g3.groupId]);
    expect(keysOf(records)).toEqual(['s1', 's2', 's3']);
    expect(Buffer.isBuffer(records[0]!.payload)).toBe(true);
    expect(records[0]!.payload.equals(bytes)).toBe(true);
    expect(records[0]).toMatchObject({
      groupId: g1.groupId,
      organizationId: org.id,
      eventId: eventIdFor(org.id, 's1'),
      flagReason: 'timestamp_too_old',
    });
    expect(records[0]!.createdAt).toEqual(stranded[0]!.createdAt);
    expect(records[2]!.payload).toEqual(Buffer.from('s3'));
  });

  it('releasing a group deletes its rows of the keys given, refunds exactly their credits and deletes the group', async () => {
    const org = await createOrganization(db(), { name: 'Release' });
    await grantCredits(db(), org.id, 10);
    const spend = (n: number) => async (tx: Queryable) => void (await spendCredits(tx, org.id, n));
    const g1 = await reserveGroup(
      org.id,
      ['x1', 'x2'].map((k) => reservation(org.id, k)),
      spend(2),
    );
    const g2 = await reserveGroup(org.id, [reservation(org.id, 'x3')], spend(1));
    await markGroupsPublished(db(), [g2.groupId]);
    const keys = (...ks: string[]) => ks.map((k) => ({ organizationId: org.id, idempotencyKey: k }));
    // x3 is another group's and published (it reached Kafka) and must stay; 'nope' never existed.
    expect(await db().transaction((tx) => releaseReservations(tx, g1.groupId, keys('x1', 'x2', 'x3', 'nope')))).toBe(2);
    expect(await getCreditBalance(db(), org.id)).toBe(9);
    expect([...(await getLedgerEntries(db(), org.id, ['x1', 'x2', 'x3'])).keys()]).toEqual(['x3']);
    expect(await groupRow(g1.groupId)).toBeUndefined();
    // A published group releases nothing.
    expect(await db().transaction((tx) => releaseReservations(tx, g2.groupId, keys('x3')))).toBe(0);
    expect(await getCreditBalance(db(), org.id)).toBe(9);

    // keepGroup: the rows go, the group stays unpublished for the sweeper's other rows.
    const g3 = await reserveGroup(
      org.id,
      ['y1', 'y2'].map((k) => reservation(org.id, k)),
      spend(2),
    );
    expect(await db().transaction((tx) => releaseReservations(tx, g3.groupId, keys('y1'), { keepGroup: true }))).toBe(1);
    expect(await getCreditBalance(db(), org.id)).toBe(8);
    expect(await groupRow(g3.groupId)).toMatchObject({ published: false });
    expect(keysOf(await listGroupRecords(db(), [g3.groupId]))).toEqual(['y2']);
  });

  it('group ids from blocks: two committers (two processes) never share an id, and ids rise within a block', async () => {
    const a = new IngestGroupIds(4);
    const b = new IngestGroupIds(4);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push(await a.next(db()));
      ids.push(await b.next(db()));
    }
    expect(new Set(ids).size).toBe(12);
    const fromA = ids.filter((_, i) => i % 2 === 0).map(Number);
    expect(fromA).toEqual([...fromA].sort((x, y) => x - y));
    // A group begun with a block id is written and read back like any other.
    const org = await createOrganization(db(), { name: 'Block ids' });
    const written = await db().transaction(async (tx) => {
      const group = await beginIngestGroup(tx, a);
      await reserveEvents(tx, group, org.id, [reservation(org.id, 'b1')]);
      await writeIngestGroup(tx, group);
      return group.id;
    });
    expect(Number(written)).toBeGreaterThan(Math.max(...fromA));
    expect(keysOf(await listGroupRecords(db(), [written]))).toEqual(['b1']);
  });

  it('a group insert marks the earlier groups it is given published, in its transaction, and only then', async () => {
    const org = await createOrganization(db(), { name: 'Piggyback' });
    const g1 = await reserveGroup(org.id, [reservation(org.id, 'p1')]);
    const g2 = await reserveGroup(org.id, [reservation(org.id, 'p2')]);
    const withMarks = (rows: ReservationInput[], marks: string[], fail = false) =>
      db().transaction(async (tx) => {
        const group = await beginIngestGroup(tx);
        await reserveEvents(tx, group, org.id, rows);
        const written = await writeIngestGroup(tx, group, marks);
        if (fail) throw new Error('rolled back');
        return { groupId: group.id, written };
      });

    // Rolled back: neither the new group nor the marks happened.
    await expect(withMarks([reservation(org.id, 'p3')], [g1.groupId], true)).rejects.toThrow('rolled back');
    expect(await groupRow(g1.groupId)).toMatchObject({ published: false });
    expect([...(await getLedgerEntries(db(), org.id, ['p3'])).keys()]).toEqual([]);

    // Committed: g1 (named twice) is published, its blob dropped; the new group is unpublished; g2 untouched.
    const g3 = await withMarks([reservation(org.id, 'p3')], [g1.groupId, g1.groupId]);
    expect(g3.written).toBe(true);
    expect(await groupRow(g1.groupId)).toEqual({ published: true, payloads: null, members: null });
    expect(await groupRow(g3.groupId)).toMatchObject({ published: false });
    expect(await groupRow(g2.groupId)).toMatchObject({ published: false });
    expect((await getLedgerDetails(db(), org.id, ['p1', 'p2', 'p3'])).get('p1')!.state).toBe('published');

    // A reservation with nothing new writes no group row, yet still marks what it was given.
    const dup = await withMarks([reservation(org.id, 'p1')], [g2.groupId, g3.groupId]);
    expect(dup.written).toBe(false);
    expect(await groupRow(dup.groupId)).toBeUndefined();
    const states = await getLedgerDetails(db(), org.id, ['p1', 'p2', 'p3']);
    expect(['p1', 'p2', 'p3'].map((k) => states.get(k)!.state)).toEqual(['published', 'published', 'published']);
    // An already published group is left as it is.
    expect(await markGroupsPublished(db(), [g1.groupId, g2.groupId, g3.groupId])).toBe(0);
  });

  it('reserveAndSpend spends one credit per key in its insert when every key is new, all or nothing, and nothing when a key existed', async () => {
    const org = await createOrganization(db(), { name: 'Spend in insert' });
    await grantCredits(db(), org.id, 5);
    const attempt = (keys: string[]) =>
      db().transaction(async (tx) => {
        const group = await beginIngestGroup(tx);
        const out = await reserveAndSpend(
          tx,
          group,
          org.id,
          keys.map((k) => reservation(org.id, k)),
          true,
        );
        await writeIngestGroup(tx, group);
        return out;
      });

    // Three distinct new keys (one repeated): three credits.
    const first = await attempt(['s1', 's2', 's1', 's3']);
    expect(first.spend).toEqual({ ok: true, balance: 2 });
    expect(first.reservations.map((r) => r.isNew)).toEqual([true, true, false, true]);
    expect(await getCreditBalance(db(), org.id)).toBe(2);

    // s3 exists: nothing is spent here (the caller spends for s4 after handling s3).
    const mixed = await attempt(['s3', 's4']);
    expect(mixed.spend).toBeNull();
    expect(mixed.reservations.map((r) => r.isNew)).toEqual([false, true]);
    expect(await getCreditBalance(db(), org.id)).toBe(2);

    // Three new keys, two credits: none spent (the caller then spends what is there).
    const short = await attempt(['t1', 't2', 't3']);
    expect(short.spend).toEqual({ ok: false, balance: 0 });
    expect(await getCreditBalance(db(), org.id)).toBe(2);

    // Without `spend`, as reserveEvents: never spends.
    const none = await db().transaction(async (tx) =>
      reserveAndSpend(tx, await beginIngestGroup(tx), org.id, [reservation(org.id, 'u1')], false),
    );
    expect(none.spend).toBeNull();
    expect(await getCreditBalance(db(), org.id)).toBe(2);
  });
});
