// Read API, the cost query: rollups answer what the raw events answer: end to end over the shared
// data set (test/support/read-dataset.ts); every figure is worked out there from the data set and
// its rates, never by calling the api code.
import { describe, expect, it } from 'vitest';
import { costByEndUser, costSummary } from '../../api/cost-data/cost-data.service.js';
import { dimensionCostTrend } from '../../api/dimension-data/dimension-data.service.js';
import { LakeQuery } from '../../api/lake/lake-query.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { RateBook } from '../../pricing/rate-book.js';
import { A, ALL_A, completed, dayOf, NOW, p, points, useReadDataset } from '../support/read-dataset.js';
import { testLakeQueryOptions } from '../support/test-lake.js';

useReadDataset();

describe('rollups answer what the raw events answer', () => {
  it('summary, by-end-user and cost-trend agree between the rollup path and the raw-event path', async () => {
    const raw = await LakeQuery.open(p.lakeDir, { useRollups: false, ...testLakeQueryOptions(p.lakeDir) });
    const rolled = await LakeQuery.open(p.lakeDir, testLakeQueryOptions(p.lakeDir));
    try {
      const rc = (lake: LakeQuery): ReadContext => ({
        organizationId: A.organizationId,
        ownerUserId: null,
        lake,
        db: p.host.db,
        rateBook: new RateBook(p.host.db),
        now: () => NOW,
      });
      for (const w of ['current-period', 'last-7-days', 'last-period']) {
        expect(await costSummary(rc(rolled), w)).toEqual(await costSummary(rc(raw), w));
      }
      const sub = ['2026-10-03T05:00:00Z', '2026-10-17T13:30:00Z'] as const;
      expect(await costByEndUser(rc(rolled), ...sub)).toEqual(await costByEndUser(rc(raw), ...sub));
      const q = { start_date: sub[0], end_date: sub[1], dimension_key: 'team' };
      expect(await dimensionCostTrend(rc(rolled), q)).toEqual(await dimensionCostTrend(rc(raw), q));
      const totalQ = { start_date: sub[0], end_date: sub[1] };
      const total = await dimensionCostTrend(rc(rolled), totalQ);
      expect(total).toEqual(await dimensionCostTrend(rc(raw), totalQ));
      // And both match the data set.
      expect(total.series[0]!.data_points).toEqual(points(completed(ALL_A, ...sub), dayOf));
    } finally {
      raw.close();
      rolled.close();
    }
  });
});
