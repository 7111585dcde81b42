// The processor's spend tally against the control plane (PGlite and PostgreSQL): each row counted
// once per partition mark, whatever the batching — a batch consumed again after a crash or a
// failed lake write (some rows below the mark, some above) adds only the rows it had not counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertTally } from '../../alerts/evaluation/spend-tally.js';
import { createLogger } from '../../core/logger.js';
import { Big } from '../../core/money.js';
import { CONTROL_DB_KINDS, openFreshControlDb, testPostgresUrl, type FreshControlDb } from '../support/control-db.js';
import { lakeEvent, ORG_A } from '../support/lake-event-builder.js';

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
        lakeEvent({ kafka_offset: offset, kafka_partition: 2, organization_id: org, model: 'unpriced-model', status: 'pending_rate_card', total_cost: '0' });
      tally.note(2, pending(0, unknown));
      tally.note(2, pending(1, ORG_A));
      await tally.recordFlush(2, 2);
      const fired = await fresh.db.query<{ organization_id: string; type: string; model: string }>(
        `SELECT organization_id, type, data->>'model' AS model FROM webhook_events WHERE type = 'rate_card.missing'`,
      );
      expect(fired).toEqual([{ organization_id: ORG_A, type: 'rate_card.missing', model: 'unpriced-model' }]);
    });
  });
}
