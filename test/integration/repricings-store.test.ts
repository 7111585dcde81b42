// The re-pricing job store on PGlite and PostgreSQL: a job completes when its last partition is
// recorded, in the same statement; recording a partition again replaces its result.
import { expect, it } from 'vitest';
import { createOrganization } from '../../core/control/organizations.js';
import {
  createRepricing,
  getRepricing,
  listRepricings,
  listRunningRepricings,
  recordRepricedPartition,
  reportRepricingProgress,
} from '../../pricing/repricings.store.js';
import { NotFoundError } from '../../core/errors.js';
import { describeEachControlDb } from '../support/control-db.js';

const result = (partition: number, rowsExamined: number) => ({
  partition,
  rowsExamined,
  rowsChanged: rowsExamined,
  costBefore: '1.5',
  costAfter: '2.25',
});

describeEachControlDb('re-pricing jobs', ({ db }) => {
  it('run until every listed partition is recorded; a re-recorded partition replaces its result', async () => {
    const org = await createOrganization(db(), { name: 'Repricing' });
    const range = { start: new Date('2025-03-01T00:00:00Z'), end: new Date('2025-04-01T00:00:00Z') };
    const job = await createRepricing(db(), org.id, { ...range, ratesVersion: 4, partitions: [3, 1], eventsTotal: 900 });
    expect(job).toMatchObject({ status: 'running', partitions: [1, 3], ratesVersion: 4, eventsTotal: 900, completedAt: null });
    expect((await listRunningRepricings(db())).map((j) => j.id)).toContain(job.id);

    await reportRepricingProgress(db(), job.id, 1, 120);
    await reportRepricingProgress(db(), job.id, 3, 40);
    expect([...(await getRepricing(db(), org.id, job.id)).inFlight]).toEqual([
      [1, 120],
      [3, 40],
    ]);

    await recordRepricedPartition(db(), job.id, result(1, 400));
    await recordRepricedPartition(db(), job.id, result(1, 500)); // re-run after a crash: replaced, not added
    let now = await getRepricing(db(), org.id, job.id);
    expect(now.status).toBe('running');
    expect(now.done.map((d) => [d.partition, d.rowsExamined, d.costAfter])).toEqual([[1, 500, '2.25']]);

    await recordRepricedPartition(db(), job.id, result(3, 400));
    now = await getRepricing(db(), org.id, job.id);
    expect(now.status).toBe('completed');
    expect(now.completedAt).toBeInstanceOf(Date);
    expect((await listRunningRepricings(db())).map((j) => j.id)).not.toContain(job.id);
    expect((await listRepricings(db(), org.id)).map((j) => j.id)).toEqual([job.id]);
  });

  it('a job with nothing to re-price is completed at once; another organization cannot read it', async () => {
    const org = await createOrganization(db(), { name: 'Empty' });
    const other = await createOrganization(db(), { name: 'Other' });
    const job = await createRepricing(db(), org.id, {
      start: new Date('2025-01-01'),
      end: new Date('2025-02-01'),
      ratesVersion: 0,
      partitions: [],
      eventsTotal: 0,
    });
    expect(job.status).toBe('completed');
    await expect(getRepricing(db(), other.id, job.id)).rejects.toThrow(NotFoundError);
  });
});
