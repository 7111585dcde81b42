// Dimension backfill end to end (all-in-one: ingest, Kafka, the processor thread, the api): events
// land in the lake while `team` is not defined, so no day is rolled up for it; defining it through
// the admin API makes the processor backfill those days on its own, GET …/dimensions/team/rollup
// shows the progress from the open lake's dimension_coverage table until complete, and new events
// are rolled up by their flush (the processor backfills by DuckLake commits). The breakdown is
// checked against costs worked out here from the card's rates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metadataCostsDerivation } from '../../api/costs/dimension-derivations.js';
import { LakeQuery } from '../../api/lake/lake-query.js';
import { Big } from '../../core/money.js';
import { ensureDuckDBExtensions } from '../../scripts/duckdb-extensions/provision.js';
import { testPostgresUrl } from '../support/control-db.js';
import { admin } from '../support/http.js';
import { testLakeQueryOptions } from '../support/test-lake.js';
import { apiGet, createTenant, ingest, llmEvent, startPipeline, waitForLake, type Pipeline, type Tenant } from '../support/pipeline.js';

// The open lake needs its DuckDB extensions and a PostgreSQL for its catalog.
const openLake =
  testPostgresUrl() !== '' &&
  (await ensureDuckDBExtensions().then(
    () => true,
    () => false,
  ));

// USD per million: input 2, output 10. An event of i input and o output tokens costs (2i + 10o) / 10^6.
const CARD = { model_slug: 'bf-model', input_cost_per_million: '2', output_cost_per_million: '10' };
const event = (key: string, day: string, team: string | null, input: number, output: number) =>
  llmEvent(key, {
    model: 'bf-model',
    input_tokens: input,
    output_tokens: output,
    timestamp: `${day}T10:00:00Z`,
    metadata: team === null ? {} : { team },
  });

const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
};

describe.skipIf(!openLake)('dimension backfill', () => {
  let p: Pipeline;
  let t: Tenant;

  beforeAll(async () => {
    p = await startPipeline();
    t = await createTenant(p, { rateCards: [CARD] });
  }, 120_000);
  afterAll(async () => {
    await p?.stop();
  });

  it('rolls up the days written before the dimension existed, with progress, and the same figures', async () => {
    await ingest(p, t, [
      event('bf-1', '2026-10-01', 'a', 100, 10), // 0.0003
      event('bf-2', '2026-10-01', 'b', 1000, 0), // 0.002
      event('bf-3', '2026-10-02', 'a', 0, 50), // 0.0005
      event('bf-4', '2026-10-02', null, 500, 100), // 0.002
    ]);
    await waitForLake(p, t.organizationId, 4);
    const rollupPath = `/organizations/${t.organizationId}/dimensions/team/rollup`;
    expect((await admin(p.host, 'GET', rollupPath)).status).toBe(404);

    expect(
      (await admin(p.host, 'POST', `/organizations/${t.organizationId}/dimensions`, { key: 'team', name: 'Team', value_type: 'string' }))
        .status,
    ).toBe(201);
    let last: any;
    await waitFor('the backfill to complete', async () => {
      last = (await admin(p.host, 'GET', rollupPath)).body;
      return last.complete === true;
    });
    expect(last).toEqual({
      key: 'team',
      value_type: 'string',
      rolled_up: true,
      days_with_events: 2,
      days_covered: 2,
      progress_percent: 100,
      complete: true,
    });

    // A later event's flush rolls it up at once: the new day is covered without a backfill.
    await ingest(p, t, [event('bf-5', '2026-10-03', 'b', 0, 100)]); // 0.001
    await waitForLake(p, t.organizationId, 5);
    const after = (await admin(p.host, 'GET', rollupPath)).body;
    expect(after).toMatchObject({ days_with_events: 3, days_covered: 3, complete: true });

    const res = await apiGet(p, t.readKey, '/dimension-data/cost-breakdown', {
      dimension_key: 'team',
      start_date: '2026-10-01',
      end_date: '2026-10-04',
    });
    expect(res.status).toBe(200);
    expect(res.body.total_cost).toBe('0.0058');
    expect(res.body.items.map((i: any) => [i.dimension_value, i.total_cost, i.event_count])).toEqual([
      ['b', '0.003', 2],
      ['Unassigned', '0.002', 1],
      ['a', '0.0008', 2],
    ]);

    // On the open lake the covered whole days are read from dimension_costs, and give what raw events give.
    // No persisted days (the pipeline's api keeps some under the same lake folder): built here, from the lake.
    const query = await LakeQuery.open(p.lakeDir, { ...testLakeQueryOptions(p.lakeDir), derivedDir: false });
    const raw = await LakeQuery.open(p.lakeDir, { ...testLakeQueryOptions(p.lakeDir), useRollups: false });
    try {
      const scope = {
        organizationId: t.organizationId,
        range: { start: new Date('2026-10-01T00:00:00Z'), end: new Date('2026-10-04T00:00:00Z') },
        derived: metadataCostsDerivation('team', { endUser: false }),
      };
      const byValue = `SELECT dim_value, CAST(sum(total_cost) AS VARCHAR) AS cost FROM {{derived}} GROUP BY ALL ORDER BY dim_value NULLS LAST`;
      expect(await raw.expand(scope, '{{derived}}')).not.toContain('dimension_costs');
      const fromRollup = await query.rows(scope, byValue);
      // Its whole days were built (and cached) from the rollup, none from raw events.
      expect(query.cache.counts.builtFrom).toEqual({ dimension_costs: 3 });
      expect(fromRollup).toEqual(await raw.rows(scope, byValue));
      // As the breakdown above: a 0.0003 + 0.0005, b 0.002 + 0.001, no team 0.002.
      expect(fromRollup.map((r) => [r.dim_value, new Big(String(r.cost)).toString()])).toEqual([
        ['a', '0.0008'],
        ['b', '0.003'],
        [null, '0.002'],
      ]);
    } finally {
      query.close();
      raw.close();
    }
  }, 180_000);
});
