// The processor's spend tally against the control plane (PGlite and PostgreSQL): each row counted
// once per partition mark, whatever the batching — a batch consumed again after a crash or a
// failed lake write (some rows below the mark, some above) adds only the rows it had not counted;
// a counted record the lake refused comes out again once its stand-in replaces it; a re-pricing's
// differences are added once, after its commit or at the next load when the process died between
// the commit and the apply (the load names the revisions the lake holds: strings here), never when
// the commit did not happen. The open lake's own case, through DuckLakeWriter's re-pricing commits,
// is ducklake-repricing-spend.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertTally } from '../../alerts/evaluation/spend-tally.js';
import { createLogger } from '../../core/logger.js';
import { Big } from '../../core/money.js';
import { CONTROL_DB_KINDS, openFreshControlDb, testPostgresUrl, type FreshControlDb } from '../support/control-db.js';
import { lakeEvent, ORG_A } from '../support/lake-event-builder.js';
import { standInLakeRow } from '../../processor/to-lake-row.js';
import type { LakeEventRow } from '../../core/lake/events-schema.js';

for (const kind of CONTROL_DB_KINDS) {
  describe.skipIf(kind === 'postgres' && !testPostgresUrl())(`alert spend tally [${kind}]`, () => {
    let fresh: FreshControlDb;
    beforeAll(async () => {
      fresh = await openFreshControlDb(kind);
      await fresh.db.query(`INSERT INTO organizations (id, name) VALUES ($1, 'tally')`, [ORG_A]);
    });
    afterAll(() => fresh?.dispose());

    const row = (offset: number, user: string | null, cost: string) =>
      lakeEvent({ kafka_offset: offset, kafka_partition: 3, user_id: user, total_cost: cost, agent_id: 'planner' });
    const spend = async (kind_: string, value: string) => {
      const [r] = await fresh.db.query<{ cost: string | null }>(
        `SELECT sum(cost)::text AS cost FROM alert_daily_spend WHERE organization_id = $1 AND key_kind = $2 AND key_value = $3`,
        [ORG_A, kind_, value],
      );
      return new Big(r?.cost ?? '0').toFixed();
    };

    it('counts each offset once across re-consumed and re-batched rows', async () => {
      const tally = new AlertTally(fresh.db, createLogger('silent'));
      // Batch [0, 3): 1.25 + 0.5 (alice) + 2 (no end user).
      tally.note(3, row(0, 'alice', '1.25'));
      tally.note(3, row(1, 'alice', '0.5'));
      tally.note(3, row(2, null, '2'));
      await tally.recordFlush(3, 3);
      expect(await spend('organization', '')).toBe('3.75');
      expect(await spend('end_user', 'alice')).toBe('1.75');
      expect(await spend('agent', 'planner')).toBe('3.75');
      // The lake write failed: the worker dropped its buffer and consumed again from offset 1,
      // batching differently ([1, 5)). Offsets 1 and 2 were counted; 3 and 4 are new.
      tally.drop(3);
      tally.note(3, row(1, 'alice', '0.5'));
      tally.note(3, row(2, null, '2'));
      tally.note(3, row(3, 'alice', '0.25'));
      tally.note(3, row(4, 'bob', '1'));
      await tally.recordFlush(3, 5);
      expect(await spend('organization', '')).toBe(new Big('3.75').plus('0.25').plus('1').toFixed());
      expect(await spend('end_user', 'alice')).toBe('2');
      expect(await spend('end_user', 'bob')).toBe('1');
      // A second tally (another processor after a rebalance) replaying the same offsets adds nothing.
      const other = new AlertTally(fresh.db, createLogger('silent'));
      for (let o = 0; o < 5; o++) other.note(3, row(o, 'alice', '9'));
      await other.recordFlush(3, 5);
      expect(await spend('organization', '')).toBe('5');
    });

    it("one organization's failed evaluation holds back no other's alerts", async () => {
      // A batch led by rows of an organization the control plane does not know: its alerts cannot
      // be written (webhook_events references organizations). ORG_A's rate_card.missing still fires.
      const unknown = '00000000-0000-4000-8000-0000000000aa';
      const tally = new AlertTally(fresh.db, createLogger('silent'));
      const pending = (offset: number, org: string) =>
        lakeEvent({
          kafka_offset: offset,
          kafka_partition: 2,
          organization_id: org,
          model: 'unpriced-model',
          status: 'pending_rate_card',
          total_cost: '0',
        });
      tally.note(2, pending(0, unknown));
      tally.note(2, pending(1, ORG_A));
      await tally.recordFlush(2, 2);
      const fired = await fresh.db.query<{ organization_id: string; type: string; model: string }>(
        `SELECT organization_id, type, data->>'model' AS model FROM webhook_events WHERE type = 'rate_card.missing'`,
      );
      expect(fired).toEqual([{ organization_id: ORG_A, type: 'rate_card.missing', model: 'unpriced-model' }]);
    });

    it('takes a counted record back out once a stand-in replaces the record the lake refused', async () => {
      const P = 5;
      const tally = new AlertTally(fresh.db, createLogger('silent'));
      const at = (offset: number, user: string, cost: string) =>
        lakeEvent({ kafka_offset: offset, kafka_partition: P, user_id: user, total_cost: cost, agent_id: 'refusal-agent' });
      const standIn = (offset: number) =>
        standInLakeRow(
          'refused',
          ORG_A,
          'the lake refused the record (test)',
          { partition: P, offset, pricedAt: new Date() },
          new Date('2025-03-10T12:00:00Z'),
        );
      const orgBefore = new Big(await spend('organization', ''));
      // Counted before the lake write: 1.5 (dora) + 4.25 (dora; the lake will refuse it) + 0.75 (erin) = 6.5.
      const batch = [at(0, 'dora', '1.5'), at(1, 'dora', '4.25'), at(2, 'erin', '0.75')];
      for (const r of batch) tally.note(P, r);
      await tally.recordFlush(P, 3);
      expect(await spend('agent', 'refusal-agent')).toBe('6.5');
      // The lake write fails; consumed again, the same rows count nothing more.
      tally.drop(P);
      for (const r of batch) tally.note(P, r);
      await tally.recordFlush(P, 3);
      expect(await spend('agent', 'refusal-agent')).toBe('6.5');
      // Narrowed down: [0, 1) is written; offset 1 is refused alone and comes back as a failed stand-in (cost 0).
      tally.written(P, 1);
      tally.drop(P);
      tally.note(P, standIn(1));
      await tally.recordFlush(P, 2);
      expect(await spend('agent', 'refusal-agent')).toBe('2.25'); // 6.5 − 4.25
      expect(await spend('end_user', 'dora')).toBe('1.5');
      expect(await spend('organization', '')).toBe(orgBefore.plus('2.25').toFixed());
      // The stand-in's own flush fails and it comes again: nothing is taken out twice.
      tally.drop(P);
      tally.note(P, standIn(1));
      await tally.recordFlush(P, 2);
      tally.written(P, 2);
      expect(await spend('agent', 'refusal-agent')).toBe('2.25');
      // A record dead-lettered with no stand-in at all (no organization to file one under) leaves nothing.
      tally.note(P, at(2, 'erin', '0.75')); // consumed again before its own flush
      tally.note(P, at(3, 'erin', '2'));
      await tally.recordFlush(P, 4);
      expect(await spend('end_user', 'erin')).toBe('2.75');
      tally.drop(P);
      tally.noteAbsent(P, 3);
      await tally.recordFlush(P, 4);
      tally.written(P, 4);
      expect(await spend('end_user', 'erin')).toBe('0.75');
      expect(await spend('agent', 'refusal-agent')).toBe('2.25');
      // Rows whose lake write was confirmed are not revisited (another version would be a new record's concern).
      tally.note(P, at(0, 'dora', '99'));
      await tally.recordFlush(P, 4);
      expect(await spend('end_user', 'dora')).toBe('1.5');
    });

    it('adds a re-pricing once: after its swap, or at the next reconcile (load) when the process died in between', async () => {
      const P = 6;
      const tally = new AlertTally(fresh.db, createLogger('silent'));
      const at = (offset: number, cost: string) =>
        lakeEvent({ kafka_offset: offset, kafka_partition: P, user_id: 'frank', total_cost: cost, agent_id: 'revision-agent' });
      tally.note(P, at(0, '1'));
      tally.note(P, at(1, '2'));
      await tally.recordFlush(P, 2);
      tally.written(P, 2);
      expect(await spend('agent', 'revision-agent')).toBe('3');
      const reprice = async (t: AlertTally, costs: Record<number, string>, rows: LakeEventRow[], files: string[]) => {
        const follower = await t.beginRevision(P, ORG_A, 2);
        const transform = follower.follow((row) =>
          costs[row.kafka_offset] === undefined ? null : { ...row, total_cost: costs[row.kafka_offset]! },
        );
        for (const row of rows) await transform(row);
        await follower.prepare(files);
        return follower;
      };
      // Offset 0: 1 → 0.4, offset 1: 2 → 2.5: spend moves by −0.6 + 0.5 = −0.1, to 2.9. The process
      // dies after the manifest swap, before the apply: nothing has moved yet.
      const swappedFile = 'events/org=a/date=2025-03-10/p6-rewrite-1.parquet';
      await reprice(tally, { 0: '0.4', 1: '2.5' }, [at(0, '1'), at(1, '2')], [swappedFile]);
      expect(await spend('agent', 'revision-agent')).toBe('3');
      // The next owner loads a manifest that lists the rewrite's file: applied, once.
      const next = new AlertTally(fresh.db, createLogger('silent'));
      await next.reconcile(P, [swappedFile, 'events/org=a/date=2025-03-09/p6-flush-x.parquet']);
      expect(await spend('agent', 'revision-agent')).toBe('2.9');
      expect(await spend('end_user', 'frank')).toBe('2.9');
      await next.reconcile(P, [swappedFile]);
      expect(await spend('agent', 'revision-agent')).toBe('2.9');
      // A rewrite that died before its swap: no manifest lists its file, so it is never applied.
      await reprice(next, { 0: '10' }, [at(0, '0.4')], ['events/org=a/date=2025-03-10/p6-rewrite-2.parquet']);
      await next.reconcile(P, [swappedFile]);
      expect(await spend('agent', 'revision-agent')).toBe('2.9');
      // The usual path: prepared, swapped, applied (2.5 → 3 at offset 1: +0.5), and a later load adds nothing.
      const usual = 'events/org=a/date=2025-03-10/p6-rewrite-3.parquet';
      const follower = await reprice(next, { 1: '3' }, [at(0, '0.4'), at(1, '2.5')], [usual]);
      await follower.commit();
      expect(await spend('agent', 'revision-agent')).toBe('3.4');
      await new AlertTally(fresh.db, createLogger('silent')).reconcile(P, [usual, swappedFile]);
      expect(await spend('agent', 'revision-agent')).toBe('3.4');
      // A row not counted yet (at or above the mark, 2) gets no difference: it counts later at its new cost.
      await (await reprice(next, { 7: '5' }, [at(7, '1')], ['events/org=a/date=2025-03-10/p6-rewrite-4.parquet'])).commit();
      expect(await spend('agent', 'revision-agent')).toBe('3.4');
    });
  });
}
