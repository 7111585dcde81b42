// The open lake's (DuckLake) versions of (organization, UTC day) for the api's caches, read from
// the catalog, so that a cached day is rebuilt exactly when something of it changed.
//
// A day's version is max(rowid) of its rows in `dimension_coverage` (core/lake/dimension-coverage.ts).
// Every write that changes an organization's day — a flush, a re-pricing, a dimension backfill,
// `lake migrate`, the writer's fold of settled coverage rows — inserts a coverage row for that
// (partition, organization, day) in the same commit as the data, and nothing deletes a day's coverage
// rows without inserting some for that day in the same commit. DuckLake gives each row a rowid when
// its commit lands, above every rowid the table ever held (never reused; kept by its compaction:
// docs/decisions/0156), so after any such write the day's max(rowid) grew.
//
// The read is incremental (docs/decisions/0159): per organization the versions of the last snapshot
// read are remembered, and at a later snapshot only the coverage rows inserted since are read
// (`ducklake_table_insertions`, which reads only the data files and inlined rows of those snapshots),
// each day's version becoming the larger rowid. That equals a full read at the later snapshot: a
// day with no row inserted since had no row deleted either (a delete comes with an insert for the
// day), so its largest rowid still stands; a day with rows inserted since has its largest inserted
// rowid alive (a later delete of it would have inserted a larger one). A count would not survive
// this (a fold deletes rows the incremental read never sees), so the version is the rowid alone.
// The first read of an organization, one at an older snapshot, and one the catalog cannot answer
// incrementally (its snapshots expired, say) read all of the organization's rows.
//
// The version names also carry the catalog's identity (below), so a day persisted by the
// DerivedStore (derived-store.ts: keyed by the name) never answers for another catalog.
//
// A request reads ONE snapshot of the catalog (`AT (VERSION => n)`): the versions, the days its
// caches build and the raw rows of its partial days all at n, so rows are never labelled with a
// version they were not built from. The current snapshot id is polled at most every
// refreshIntervalMs (as LakeReader re-checks manifests); while it is unchanged every version read
// at it still holds and no version is read again.
import type { DuckDBConnection } from '@duckdb/node-api';
import { cachedLoad, LRUCache } from '../../core/cache.js';
import { coveredDaysSql } from '../../core/lake/dimension-coverage.js';
import type { DimensionType } from '../../core/lake/dimension-rollups.js';
import type { LakeTable } from '../../core/lake/layout.js';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import type { DaySource } from './derived-cache.js';

/** (snapshot, organization) version maps remembered, least recently asked dropped first. */
const MAX_REMEMBERED = 2048;

/** An organization's day → max(rowid) of its coverage rows, as of `snapshot`. */
interface DayRowids {
  snapshot: number;
  days: Map<string, bigint>;
}

type Query = <T>(sql: string, read: (rows: unknown[][]) => T) => Promise<T>;

/** A relation of a DuckLake table as of snapshot `snapshot` (a `lake.` table name). */
export function atSnapshot(table: string, snapshot: number): string {
  return `lake."${table}" AT (VERSION => ${snapshot})`;
}

/** A day's version name as the DerivedCache and EdgeCache take a file: it holds the date and changes with the day. */
function versionName(table: LakeTable, day: string, version: string): string {
  return `ducklake/${table}/date=${day}/${version}`;
}

export class DuckLakeDays {
  private current: { id: number; checked: number } | null = null;
  /**
   * The catalog's identity in every version name: dimension_coverage's table_uuid (a catalog made
   * anew hands out rowids from 0 again, so versions alone could repeat; rows persisted for the old
   * one must never match). Read with the first snapshot and again whenever the id goes back.
   */
  private identity = '';
  private polling: Promise<number> | null = null;
  /** Keyed by snapshot and organization (and dimension): a new snapshot asks anew, older ones age out. */
  private readonly versions = new LRUCache<string, Promise<Map<string, string>>>({ max: MAX_REMEMBERED });
  private readonly covered = new LRUCache<string, Promise<Map<string, boolean>>>({ max: MAX_REMEMBERED });
  /** Per organization, the latest snapshot's versions read: the base of the next (incremental) read. */
  private readonly latest = new LRUCache<string, DayRowids>({ max: MAX_REMEMBERED });
  /**
   * Reads of the catalog (for tests and metrics): snapshot polls, version reads (of them
   * `incremental`), and the coverage rows the version reads counted.
   */
  readonly reads = { snapshots: 0, versions: 0, incremental: 0, coverageRows: 0 };

  constructor(
    private readonly query: Query,
    private readonly refreshIntervalMs: number,
  ) {}

  /** The catalog's current snapshot id, polled at most every refreshIntervalMs. */
  async snapshot(): Promise<number> {
    const c = this.current;
    if (c && performance.now() - c.checked < this.refreshIntervalMs) return c.id;
    this.polling ??= this.query('FROM lake.current_snapshot()', (rows) => Number(rows[0]![0] as bigint))
      .then(async (id) => {
        this.reads.snapshots++;
        // A catalog made anew under us (ids went back): nothing remembered may hold.
        if (!this.current || id < this.current.id) {
          this.versions.clear();
          this.covered.clear();
          this.latest.clear();
          this.identity = await this.query(
            `SELECT replace(CAST(table_uuid AS VARCHAR), '-', '') FROM ducklake_table_info('lake') WHERE table_name = 'dimension_coverage'`,
            (rows) => String(rows[0]?.[0] ?? ''),
          );
        }
        this.current = { id, checked: performance.now() };
        return id;
      })
      .finally(() => {
        this.polling = null;
      });
    return this.polling;
  }

  /** Version names of the organization's days at `snapshot` from `first` to `last` (YYYY-MM-DD, both included; null: open), one per day with data. */
  async names(snapshot: number, table: LakeTable, organizationId: string, first: string | null, last: string | null): Promise<string[]> {
    const days = await this.dayVersions(snapshot, organizationId);
    const out: string[] = [];
    for (const [day, version] of days) {
      if ((first === null || day >= first) && (last === null || day <= last)) out.push(versionName(table, day, version));
    }
    return out.sort();
  }

  /**
   * Reads every organization's day versions at `snapshot` in one scan (the api's start: each
   * organization's first request then reads only the rows inserted since, or nothing while the
   * snapshot stands).
   */
  async readAll(snapshot: number): Promise<void> {
    const all = await this.query(
      `SELECT organization_id, CAST(event_date AS VARCHAR), count(*), max(rowid) FROM ${atSnapshot('dimension_coverage', snapshot)} GROUP BY ALL`,
      (rows) => {
        this.reads.versions++;
        const byOrg = new Map<string, Map<string, bigint>>();
        for (const r of rows) {
          this.reads.coverageRows += Number(r[2] as bigint);
          const org = String(r[0]);
          if (!byOrg.has(org)) byOrg.set(org, new Map());
          byOrg.get(org)!.set(String(r[1]), r[3] as bigint);
        }
        return byOrg;
      },
    );
    for (const [org, days] of all) {
      const base = this.latest.get(org);
      if (base && base.snapshot >= snapshot) continue;
      this.latest.set(org, { snapshot, days });
      this.versions.set(`${snapshot}\u0000${org}`, Promise.resolve(this.named(days)));
    }
  }

  /** day → version name part of a day → max(rowid) map. */
  private named(days: Map<string, bigint>): Map<string, string> {
    return new Map([...days].map(([day, rowid]) => [day, `v${String(rowid)}-${this.identity}`]));
  }

  /** day → version of every day of the organization with coverage rows, at `snapshot`. */
  private dayVersions(snapshot: number, organizationId: string): Promise<Map<string, string>> {
    return cachedLoad(this.versions, `${snapshot}\u0000${organizationId}`, async () => {
      const read = await this.dayRowids(snapshot, organizationId);
      const base = this.latest.get(organizationId);
      if (!base || base.snapshot < snapshot) this.latest.set(organizationId, read);
      return this.named(read.days);
    });
  }

  /** The organization's day → max(rowid) at `snapshot`: the remembered one plus the rows inserted since, or all rows. */
  private async dayRowids(snapshot: number, organizationId: string): Promise<DayRowids> {
    const org = sqlStringLiteral(organizationId);
    const base = this.latest.get(organizationId);
    if (base && base.snapshot < snapshot) {
      const inserted = await this.grouped(
        `ducklake_table_insertions('lake', 'main', 'dimension_coverage', ${base.snapshot + 1}, ${snapshot})`,
        org,
      ).catch(() => null); // not answerable incrementally (expired snapshots, a changed schema): read all
      if (inserted) {
        this.reads.incremental++;
        const days = new Map(base.days);
        for (const [day, rowid] of inserted) if (rowid > (days.get(day) ?? -1n)) days.set(day, rowid);
        return { snapshot, days };
      }
    }
    return { snapshot, days: await this.grouped(atSnapshot('dimension_coverage', snapshot), org) };
  }

  /** day → max(rowid) of the organization's rows of a relation of dimension_coverage. */
  private grouped(relation: string, org: string): Promise<Map<string, bigint>> {
    return this.query(
      `SELECT CAST(event_date AS VARCHAR), count(*), max(rowid) FROM ${relation} WHERE organization_id = ${org} GROUP BY event_date`,
      (rows) => {
        this.reads.versions++;
        for (const r of rows) this.reads.coverageRows += Number(r[1] as bigint);
        return new Map(rows.map((r) => [String(r[0]), r[2] as bigint]));
      },
    );
  }

  /**
   * day → whether every partition's day is rolled up for the dimension (coveredDaysSql), at
   * `snapshot`, for every day of the organization with events.
   */
  coveredDays(snapshot: number, organizationId: string, key: string, type: DimensionType): Promise<Map<string, boolean>> {
    const sql = coveredDaysSql(key, type, undefined, snapshot).replaceAll('$org', sqlStringLiteral(organizationId));
    return cachedLoad(this.covered, `${snapshot}\u0000${organizationId}\u0000${key}\u0000${type}`, () =>
      this.query(
        `SELECT CAST(event_date AS VARCHAR), covered FROM (${sql})`,
        (rows) => new Map(rows.map((r) => [String(r[0]), r[1] === true])),
      ),
    );
  }

  /** The DaySource of cache builds at `snapshot`: the table's rows of those days, joined to their ids. */
  source(snapshot: number): DaySource {
    return (table, days) => {
      const dates = days.map((d) => `DATE '${d.day}'`);
      const map = `(VALUES ${days.map((d) => `(DATE '${d.day}', ${d.id})`).join(', ')}) AS m(day, day_id)`;
      const columns = table === 'events' ? 'r.*' : 'r.* EXCLUDE (kafka_partition)';
      return `(SELECT ${columns}, m.day_id AS _day_id
                 FROM (SELECT * FROM ${atSnapshot(table, snapshot)}) r
                 JOIN ${map} ON r.event_date = m.day
                WHERE r.organization_id = $org AND r.event_date IN (${dates.join(', ')}))`;
    };
  }
}

/** A Query over connections of a pool. */
export function pooledQuery(connect: () => Promise<DuckDBConnection>, release: (c: DuckDBConnection) => void): Query {
  return async (sql, read) => {
    const conn = await connect();
    try {
      return read((await conn.runAndReadAll(sql)).getRows() as unknown[][]);
    } finally {
      release(conn);
    }
  };
}
