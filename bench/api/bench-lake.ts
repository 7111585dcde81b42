// The read benchmarks' data set: bench/api's organizations (one large with a read key, the team /
// region / latency_ms dimensions and 1,000 end users; five smaller ones) and their synthetic lake,
// built once into a data directory and described by its meta file, so bench/api and bench/compare
// measure the same events and can share a --data-dir.
import { issueApiKey } from '../../core/control/api-keys.js';
import { createDimension } from '../../core/control/dimensions.js';
import { upsertEndUsers } from '../../core/control/end-users.js';
import { createOrganization } from '../../core/control/organizations.js';
import { SCOPES } from '../../core/auth/scopes.js';
import { DimensionBook } from '../../processor/dimension-book.js';
import { log, type SyntheticLakeHost } from './synthetic-lake-host.js';
import { writeSyntheticLake, type OrgPlan } from './synthetic-lake.js';

export const FIRST_DAY = new Date('2026-07-01T00:00:00.000Z');
const OTHER_ORGS = 5;
const OTHER_EVENTS = 100_000;
export const END_USERS = 1000;
export const BENCH_META_FILE = 'bench-meta.json';

/** The api's clock: late on the last day of data, so "current-period" and "last-90-days" hold data. */
export function benchNow(days: number): Date {
  return new Date(FIRST_DAY.getTime() + days * 86_400_000 - 6 * 3_600_000);
}

export interface BenchMeta {
  organizationId: string;
  otherOrganizations: string[];
  apiKey: string;
  events: number;
  days: number;
  writtenMs: number;
  rows: Record<string, number>;
}

/** The data directory's organizations and lake: those an earlier run left there, or new ones. */
export function benchLake(bench: SyntheticLakeHost, events: number, days: number): Promise<BenchMeta> {
  const db = bench.host.ctx.db;
  return bench.dataOnce(BENCH_META_FILE, async () => {
    const org = await createOrganization(db, { name: 'bench-large' });
    const others = [];
    for (let i = 0; i < OTHER_ORGS; i++) others.push(await createOrganization(db, { name: `bench-other-${i}` }));
    const key = await issueApiKey(db, bench.host.ctx.masterKey, org.id, { scopes: SCOPES.filter((s) => s !== 'usage:write') });
    await createDimension(db, org.id, { key: 'team', name: 'Team', valueType: 'string' });
    await createDimension(db, org.id, { key: 'region', name: 'Region', valueType: 'string' });
    await createDimension(db, org.id, { key: 'latency_ms', name: 'Latency (ms)', valueType: 'number' });
    await upsertEndUsers(
      db,
      org.id,
      Array.from({ length: END_USERS }, (_, i) => `user-${i}`),
    );
    const plans: OrgPlan[] = [
      { organizationId: org.id, events, endUsers: END_USERS },
      ...others.map((o) => ({ organizationId: o.id, events: OTHER_EVENTS, endUsers: 200 })),
    ];
    const lake = bench.config.lake;
    log(
      `writing ${events} events for ${org.id} and ${OTHER_ORGS} × ${OTHER_EVENTS} for other organizations over ${days} days into ${lake.dataPath}`,
    );
    const t = performance.now();
    // The processor rolls defined dimensions up as it writes; so does the synthetic writer.
    const dimensions = new DimensionBook(db);
    const rows = await writeSyntheticLake({ lake, orgs: plans, days, firstDay: FIRST_DAY, onProgress: log, dimensions });
    const writtenMs = Math.round(performance.now() - t);
    log(`lake written in ${(writtenMs / 1000).toFixed(0)} s`);
    return {
      organizationId: org.id,
      otherOrganizations: others.map((o) => o.id),
      apiKey: key.apiKey,
      events,
      days,
      writtenMs,
      rows: Object.fromEntries(rows),
    };
  });
}
