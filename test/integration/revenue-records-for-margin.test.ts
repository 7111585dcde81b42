// listRevenueRecordsForMargin (one json_agg document) must hand margin exactly what
// listRevenueRecords (a row per record) does: same records, same order (the customer-name rule
// keeps the first of equal period ends), exact amounts, periods to the millisecond.
import { expect, it } from 'vitest';
import { createOrganization } from '../../core/control/organizations.js';
import {
  importRevenueRecords,
  listRevenueRecords,
  listRevenueRecordsForMargin,
  revenueRecordsVersion,
} from '../../revenue/revenue.store.js';
import { describeEachControlDb } from '../support/control-db.js';
import { cachedRevenue, cacheRevenue } from '../../revenue/revenue-cache.js';

describeEachControlDb('revenue records as margin reads them', ({ db }) => {
  it('equal to listRevenueRecords, in its order, amounts exact, sub-millisecond periods floored', async () => {
    const org = await createOrganization(db(), { name: 'margin-records' });
    const other = await createOrganization(db(), { name: 'margin-records-other' });
    const jan = new Date('2025-01-01T00:00:00.000Z');
    const feb = new Date('2025-02-01T00:00:00.000Z');
    await importRevenueRecords(db(), org.id, [
      { id: 'b', userId: 'u-1', customerName: 'Second', amount: '123456789.123456789012', periodStart: jan, periodEnd: feb },
      { id: 'a', userId: 'u-1', customerName: 'First', amount: '10', periodStart: jan, periodEnd: feb },
      {
        id: 'r',
        userId: 'u-2',
        customerName: null,
        amount: '-0.000000000001',
        periodStart: new Date('2024-12-15T12:34:56.789Z'),
        periodEnd: jan,
      },
      { id: 'n', userId: null, amount: '5.5', periodStart: feb, periodEnd: new Date('2025-03-01T00:00:00.000Z') },
    ]);
    await importRevenueRecords(db(), other.id, [{ id: 'x', userId: 'u-9', amount: '1', periodStart: jan, periodEnd: feb }]);
    // Microseconds the ISO inputs cannot carry: both readers must see 2025-02-01T00:00:00.000Z.
    await db().query(
      `UPDATE revenue_records SET period_end = period_end + interval '750 microseconds' WHERE organization_id = $1 AND id = 'n'`,
      [org.id],
    );

    const read = await listRevenueRecordsForMargin(db(), org.id);
    const lean = read.records;
    const full = await listRevenueRecords(db(), org.id);
    // The version read with the records is the one the cache compares on every request.
    expect(read.version).toBe(await revenueRecordsVersion(db(), org.id));
    expect(read.version.startsWith('4@')).toBe(true);
    expect(lean).toEqual(
      full.map((r) => ({
        source: r.source,
        userId: r.userId,
        customerName: r.customerName,
        amount: r.amount,
        periodStart: r.periodStart,
        periodEnd: r.periodEnd,
      })),
    );
    // Worked by hand: ordered by period start, then source, then id.
    expect(lean.map((r) => [r.userId, r.customerName, r.amount])).toEqual([
      ['u-2', null, '-0.000000000001'],
      ['u-1', 'First', '10'],
      ['u-1', 'Second', '123456789.123456789012'],
      [null, null, '5.5'],
    ]);
    expect(lean[3]!.periodEnd.toISOString()).toBe('2025-03-01T00:00:00.000Z');
    expect(lean[0]!.periodStart.toISOString()).toBe('2024-12-15T12:34:56.789Z');
    const none = await listRevenueRecordsForMargin(db(), '00000000-0000-4000-8000-000000000000');
    expect(none.records).toEqual([]);
    expect(none.version).toBe(await revenueRecordsVersion(db(), '00000000-0000-4000-8000-000000000000'));
  });

  it('the revenue cache off gives the same records and names, read again on every call', async () => {
    const org = await createOrganization(db(), { name: 'margin-cache' });
    const jan = new Date('2025-01-01T00:00:00.000Z');
    const feb = new Date('2025-02-01T00:00:00.000Z');
    await importRevenueRecords(db(), org.id, [
      { id: 'a', userId: 'u-1', customerName: 'Acme', amount: '10', periodStart: jan, periodEnd: feb },
      { id: 'n', userId: null, amount: '5.5', periodStart: jan, periodEnd: feb },
    ]);
    const on = await cachedRevenue(db(), org.id);
    expect(await cachedRevenue(db(), org.id)).toBe(on); // a hit
    cacheRevenue(db(), false);
    try {
      const off = await cachedRevenue(db(), org.id);
      expect(off).not.toBe(on);
      expect(off.records).toEqual(on.records);
      expect(off.names).toEqual(on.names);
      expect(await cachedRevenue(db(), org.id)).not.toBe(off); // read again
    } finally {
      cacheRevenue(db(), true);
    }
    expect(await cachedRevenue(db(), org.id)).toBe(on);
  });
});
