// Runs the api's read SQL over the open lake (DuckLake): one DuckDB instance per process with the
// catalog attached, parameterized SQL, and rows back with DECIMAL as exact decimal strings (never
// JS numbers), integers as numbers, TIMESTAMP as Date, DATE as 'YYYY-MM-DD'.
//
// SQL names lake relations with placeholders that are replaced by the rows of the caller's
// organization and date range:
//   {{events}}, {{daily_costs}}, {{session_spans}}  — the table's rows on the UTC days the range
//       overlaps (whole days: filter event_timestamp for exact bounds);
//   {{costs}} — rows shaped like daily_costs that cover exactly [start, end): the daily_costs
//       rollup for the whole UTC days of the range, plus the raw events of the partial days at
//       either end rolled up on the fly. Cost queries read this and never care which it was.
//   {{derived}} — the same idea for a query-specific per-day aggregate of events (scope.derived,
//       see derived-cache.ts): cached rows for whole days, computed from raw events for partial
//       days. This is how metadata dimensions and usage totals avoid re-reading 5M rows. A defined
//       dimension's whole days come from the processor's dimension rollups where they cover the
//       day (dimension-rollup-read.ts).
// Whole-day rows of {{costs}} and {{derived}} come from the in-memory DerivedCache (keyed by each
// day's version), so a repeated query reads DuckDB memory, not the lake; a query of one end user or one
// filter value (scope.only) reads that selection's projection of them (row-projection.ts), and a
// sub-day slice asked again its kept rows (edge-cache.ts).
// $org (the organization), $start and $end (the range, TIMESTAMP) are bound automatically when
// the SQL mentions them; every query must still filter `organization_id = $org` first.
//
// Each request reads ONE DuckLake snapshot through a LakeView (lake-view.ts; `AT (VERSION => n)`, n
// polled at most every refreshIntervalMs), and the caches key a day by its (organization, day)
// version read from dimension_coverage (ducklake-days.ts; docs/decisions/0156, 0159). Settled days
// are persisted under <lakeDir>/_derived, keyed by that version: a local cache a host may lose.
// A store or catalog that cannot be reached answers 503 (ServiceUnavailableError), never a 500.
import {
  type DuckDBInstance,
  DuckDBTypeId,
  JSDuckDBValueConverter,
  type DuckDBConnection,
  type DuckDBValueConverter,
  type JS,
} from '@duckdb/node-api';
import { type DateRange, DAY_MS, utcDate } from '../../core/time.js';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DerivedCache, type Derivation } from './derived-cache.js';
import { dimensionWholeDayParts, type DimensionDerivation } from './dimension-rollup-read.js';
import { DuckLakeDays, pooledQuery } from './ducklake-days.js';
import { duckLakeView, type LakeView } from './lake-view.js';
import { DerivedStore } from './derived-store.js';
import { EdgeCache } from './edge-cache.js';
import type { RowSelection } from './row-projection.js';
import { inlineParameters, type InlineValue } from './inline-parameters.js';
import type { LakeTable } from '../../core/lake/layout.js';
import { DAILY_COSTS, rollupFromEventsSql } from '../../core/lake/rollups.js';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import { ensureLakeTables, isLakeUnreachable, type OpenLake, openLake } from '../../core/lake/lake-catalog.js';
import type { LakeSettings } from '../../core/lake/lake-settings.js';
import { ServiceUnavailableError } from '../../core/errors.js';

type LakeValue = string | number | boolean | Date | null;
export type LakeRow = Record<string, LakeValue>;
/** Query parameters, written into the SQL as literals (inline-parameters.ts): Date as TIMESTAMP (UTC), integers as BIGINT. */
export type LakeParam = string | number | boolean | Date | null | readonly string[];

export interface LakeScope {
  organizationId: string;
  /** [start, end): picks files by UTC date and binds $start / $end. */
  range?: DateRange;
  /** What {{derived}} stands for (source must be 'events'; a dimension's may have a rollup twin). */
  derived?: DimensionDerivation;
  /**
   * The query reads only the rows of {{costs}} / {{derived}} this selects (it filters them so
   * itself, e.g. one end user): their cached whole days may then come from the selection's
   * projection (row-projection.ts), a subset that holds every row it selects.
   */
  only?: RowSelection;
}

export type { Derivation, DimensionDerivation };

export interface LakeQueryOptions {
  /** DuckDB worker threads (default 2). */
  threads?: number;
  /**
   * When false, {{costs}} is computed from raw events for the whole range (the benchmark's
   * comparison path). Default true: rollups answer whole days.
   */
  useRollups?: boolean;
  /** How often the catalog's current snapshot is polled, at most (default 250 ms). */
  refreshIntervalMs?: number;
  /** Row budget of the cache (default 600k; derived-cache.ts). */
  cacheMaxRows?: number;
  /** How long replaced cached rows stay readable (default 60 s). */
  cacheGraceMs?: number;
  /**
   * Where built derived days are persisted for the next process (api/lake/derived-store.ts);
   * default `<lakeDir>/_derived` (on the open lake a local cache a host may lose); false = not persisted.
   */
  derivedDir?: string | false;
  /** Told once if persisting derived days fails (then off for this process). */
  onDerivedStoreError?: (err: unknown) => void;
  /** A day's derived rows are persisted once its end is this far in the past (default 1 day). */
  persistSettledMs?: number;
  /**
   * DuckDB's memory_limit (default '300MB'): its buffer pool, the cached derived rows and query
   * working memory included; beyond it DuckDB spills to a temporary directory of this process.
   */
  memoryLimit?: string;
  /**
   * The database the DerivedCache's tables live in: 'compressed' (default), an attached in-memory
   * database with DuckDB's lightweight compression; 'memory', the same uncompressed (a little
   * faster, ~140 MB more RSS); 'disk', a temporary database file whose blocks DuckDB can evict to
   * it (2× slower warm). bench/results/api-warm-ab.md and api-rss.md.
   */
  derivedTables?: DerivedTables;
  /**
   * Switches of the read path's layers, each default on, for the A/B that weighs them
   * (bench/read-path-layers, docs/read-path.md); off, a layer's work is done per query, same answers.
   * parquetMetadataCache: DuckDB's Parquet footer cache; rowProjections: a selection's copy of
   * cached days (row-projection.ts); edgeCacheSlices: sub-day slices kept (edge-cache.ts, default
   * 256, 0 = none); sessionIndex: none any more (the manifest lake's index of session_spans files
   * went with that format: a tree reads session_spans filtered), kept while bench/read-path-layers
   * names it.
   */
  parquetMetadataCache?: boolean;
  rowProjections?: boolean;
  edgeCacheSlices?: number;
  sessionIndex?: boolean;
  /** The open lake (DuckLake) read: config.lake (core/lake/lake-settings.ts). Required. */
  duckLake?: LakeSettings;
}

export type DerivedTables = 'memory' | 'compressed' | 'disk';

const TEMP_PREFIX = 'marginal-duckdb-';

/** Deletes the temporary directories of api processes that died without closing their LakeQuery. */
function removeOrphanTempDirs(): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    const pid = Number(/^marginal-duckdb-(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0); // alive: not ours to delete
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ESRCH') fs.rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
    }
  }
}

/** The attached database holding the DerivedCache's tables. */
const DERIVED_CATALOG = 'derived_cache';

/** The ATTACH target of the DerivedCache's database (see LakeQueryOptions.derivedTables). */
function derivedDatabaseSql(kind: DerivedTables, tempDir: string): string {
  switch (kind) {
    case 'memory':
      return `':memory:' AS ${DERIVED_CATALOG}`;
    case 'compressed':
      return `':memory:' AS ${DERIVED_CATALOG} (COMPRESS)`;
    case 'disk':
      return `${sqlStringLiteral(path.join(tempDir, 'derived.duckdb'))} AS ${DERIVED_CATALOG}`;
  }
}

const PLACEHOLDER = /\{\{(events|daily_costs|session_spans|costs|derived)\}\}/g;

/** The daily_costs rollup of a day, its files (one per Kafka partition) merged into one. */
const DAILY_COSTS_MERGED: Derivation = {
  id: 'daily_costs',
  source: 'daily_costs',
  perDay: `SELECT filename, ${DAILY_COSTS.keys.map((k) => `"${k.name}"`).join(', ')}, ${DAILY_COSTS.measures
    .map((m) => `${m.merge} AS "${m.column.name}"`)
    .join(', ')} FROM {{src}} GROUP BY ALL`,
};

/** daily_costs-shaped rows per hour of events (answers the whole hours of partial days). */
const HOURLY_COSTS: Derivation = {
  id: 'costs@hour',
  source: 'events',
  hourly: true,
  perDay: `SELECT filename, ${DAILY_COSTS.keys.map((k) => `"${k.name}"`).join(', ')}, ${DAILY_COSTS.measures
    .map((m) => `${m.fromEvents} AS "${m.column.name}"`)
    .join(', ')} FROM {{src}} GROUP BY ALL`,
};

/** The whole-UTC-day part of a range (answered by rollups) and the partial days at its ends. */
export interface DaySplit {
  /** UTC-midnight-aligned [start, end), or null when the range holds no whole day. */
  wholeDays: DateRange | null;
  /** Sub-day pieces before and after wholeDays (or the whole range when it has no whole day). */
  partial: DateRange[];
}

export function splitWholeDays(range: DateRange): DaySplit {
  const s = range.start.getTime();
  const e = range.end.getTime();
  const firstMidnight = Math.ceil(s / DAY_MS) * DAY_MS;
  const lastMidnight = Math.floor(e / DAY_MS) * DAY_MS;
  if (firstMidnight >= lastMidnight) return { wholeDays: null, partial: s < e ? [range] : [] };
  const partial: DateRange[] = [];
  if (s < firstMidnight) partial.push({ start: range.start, end: new Date(firstMidnight) });
  if (lastMidnight < e) partial.push({ start: new Date(lastMidnight), end: range.end });
  return { wholeDays: { start: new Date(firstMidnight), end: new Date(lastMidnight) }, partial };
}

const HOUR_MS = 3_600_000;

/** The whole-hour part of a range and the sub-hour pieces at its ends (as splitWholeDays). */
export function splitWholeHours(range: DateRange): { wholeHours: DateRange | null; partial: DateRange[] } {
  const s = range.start.getTime();
  const e = range.end.getTime();
  const first = Math.ceil(s / HOUR_MS) * HOUR_MS;
  const last = Math.floor(e / HOUR_MS) * HOUR_MS;
  if (first >= last) return { wholeHours: null, partial: s < e ? [range] : [] };
  const partial: DateRange[] = [];
  if (s < first) partial.push({ start: range.start, end: new Date(first) });
  if (last < e) partial.push({ start: new Date(last), end: range.end });
  return { wholeHours: { start: new Date(first), end: new Date(last) }, partial };
}

// DECIMAL stays exact (string); counts fit a double; TIMESTAMP is UTC (the lake stores UTC).
const convert: DuckDBValueConverter<LakeValue> = (value, type, converter) => {
  if (value === null) return null;
  switch (type.typeId) {
    case DuckDBTypeId.DECIMAL:
    case DuckDBTypeId.DATE:
      return String(value);
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.UHUGEINT:
      return Number(value as bigint);
    default:
      return JSDuckDBValueConverter(value, type, converter as unknown as DuckDBValueConverter<JS>) as LakeValue;
  }
};

function inlineValue(value: LakeParam): InlineValue {
  if (Array.isArray(value)) throw new Error('list parameters are not supported; use a relation');
  return value as InlineValue;
}

function dateLiteralSql(d: Date): string {
  return `DATE '${utcDate(d)}'`;
}

/** Relations as one; UNION ALL BY NAME: the cached and the computed parts name the same columns. */
function unionByName(parts: readonly string[]): string {
  return parts.length === 1 ? parts[0]! : `(${parts.map((p) => `SELECT * FROM ${p}`).join(' UNION ALL BY NAME ')})`;
}

export class LakeQuery {
  private readonly idle: DuckDBConnection[] = [];
  private closed = false;
  private closing: Promise<void> | null = null;
  /** Connections handed out and not yet released; close() waits for them. */
  private leased = 0;
  private readonly drained: Array<() => void> = [];
  readonly cache: DerivedCache;
  /** Sub-day slices of ranges asked more than once (edge-cache.ts). */
  readonly edges: EdgeCache;
  /** The open lake's day versions (ducklake-days.ts); null on the manifest lake. */
  readonly duckLakeDays: DuckLakeDays;

  private constructor(
    lakeDir: string,
    private readonly instance: DuckDBInstance,
    readonly useRollups: boolean,
    options: LakeQueryOptions,
    private readonly tempDir: string,
    private readonly duckLake: OpenLake,
  ) {
    // On the open lake a day's name is its catalog version (with the catalog's identity), so the
    // same store holds: a local cache a host may lose (0156).
    const derivedDir = options.derivedDir ?? path.join(lakeDir, '_derived');
    this.cache = new DerivedCache(
      () => this.connection(),
      (c) => this.release(c),
      {
        maxRows: options.cacheMaxRows,
        graceMs: options.cacheGraceMs,
        catalog: DERIVED_CATALOG,
        store:
          useRollups && derivedDir
            ? new DerivedStore(derivedDir, { graceMs: options.cacheGraceMs, onError: options.onDerivedStoreError })
            : null,
        persistSettledMs: options.persistSettledMs,
        rowProjections: options.rowProjections,
      },
    );
    this.edges = new EdgeCache(
      () => this.connection(),
      (c) => this.release(c),
      { catalog: DERIVED_CATALOG, graceMs: options.cacheGraceMs, maxSlices: options.edgeCacheSlices },
    );
    this.duckLakeDays = new DuckLakeDays(
      pooledQuery(
        () => this.connection(),
        (c) => this.release(c),
      ),
      options.refreshIntervalMs ?? 250,
    );
  }

  static async open(lakeDir: string, options: LakeQueryOptions = {}): Promise<LakeQuery> {
    if (!options.duckLake) throw new Error('LakeQuery reads the open lake: options.duckLake (config.lake) is required');
    removeOrphanTempDirs();
    const tempDir = path.join(os.tmpdir(), `${TEMP_PREFIX}${process.pid}-${randomUUID()}`);
    const settings = {
      // Bounds the api's memory (bench/results/api.json: RSS); measured to cost warm answers nothing.
      memory_limit: options.memoryLimit ?? '300MB',
      temp_directory: path.join(tempDir, 'spill'),
      // DuckDB's jemalloc keeps freed pages until its next allocations decay them; its background
      // threads return them while the api idles (~50 MB less RSS after bench/api's run, the same
      // latency: bench/results/api-rss.md).
      allocator_background_threads: 'true',
    };
    const duckLake = await openDuckLakeReader(options.duckLake, options.threads ?? 2);
    const instance = duckLake.instance;
    const setup = await instance.connect();
    try {
      for (const [name, value] of Object.entries(settings)) await setup.run(`SET GLOBAL ${name} = ${sqlStringLiteral(value)}`);
      // Parquet footers are re-read on every query otherwise; lake files are immutable (names
      // are never reused), so a cached footer is never stale.
      await setup.run('LOAD parquet');
      await setup.run(`SET GLOBAL parquet_metadata_cache = ${options.parquetMetadataCache !== false}`);
      fs.mkdirSync(tempDir, { recursive: true });
      await setup.run(`ATTACH ${derivedDatabaseSql(options.derivedTables ?? 'compressed', tempDir)}`);
    } finally {
      setup.closeSync();
    }
    return new LakeQuery(lakeDir, instance, options.useRollups ?? true, options, tempDir, duckLake);
  }

  /**
   * Runs `sql` for one organization (and range) and returns its rows. Placeholders and automatic
   * parameters are described at the top of this file; `params` are bound by name ($name).
   */
  async rows<T extends object = LakeRow>(scope: LakeScope, sql: string, params: Record<string, LakeParam> = {}): Promise<T[]> {
    this.refuseIfClosing();
    // The cache's copies and writes for this query's relations wait until it ran (derived-cache.ts).
    const { value: text, startBackground } = await this.cache.collect(() => this.expand(scope, sql));
    try {
      const all: Record<string, LakeParam> = { org: scope.organizationId, ...scope.derived?.params, ...params };
      if (scope.range) {
        all.start ??= scope.range.start;
        all.end ??= scope.range.end;
      }
      const values: Record<string, InlineValue> = {};
      for (const [name, v] of Object.entries(all)) values[name] = inlineValue(v);
      const conn = await this.connection();
      try {
        // Literals, not bound parameters: one call into DuckDB (inline-parameters.ts).
        const reader = await conn.runAndReadAll(inlineParameters(text, values)).catch((e: unknown) => {
          throw this.unreachable(e);
        });
        return reader.convertRowObjects(convert) as T[];
      } finally {
        this.release(conn);
      }
    } finally {
      startBackground();
    }
  }

  /**
   * The open lake's organizations, most daily_costs rows first: a read across organizations, from the
   * catalog (a fresh api host knows them with nothing local), for what the api prepares at start.
   */
  async duckLakeOrganizations(): Promise<string[]> {
    this.refuseIfClosing();
    const conn = await this.connection();
    try {
      const reader = await conn
        .runAndReadAll('SELECT "organization_id" FROM lake."daily_costs" GROUP BY ALL ORDER BY count(*) DESC, 1')
        .catch((e: unknown) => {
          throw isLakeUnreachable(e) ? new ServiceUnavailableError("The lake's store or catalog is unavailable; retry shortly") : e;
        });
      return reader.getColumns()[0]?.map(String) ?? [];
    } finally {
      this.release(conn);
    }
  }

  /** The first row, or null. */
  async row<T extends object = LakeRow>(scope: LakeScope, sql: string, params: Record<string, LakeParam> = {}): Promise<T | null> {
    return (await this.rows<T>(scope, sql, params))[0] ?? null;
  }

  /** The SQL with every placeholder replaced by its relation (exposed for tests and EXPLAIN). */
  async expand(scope: LakeScope, sql: string): Promise<string> {
    this.refuseIfClosing();
    const names = new Set([...sql.matchAll(PLACEHOLDER)].map((m) => m[1]!));
    if (names.size === 0) return sql;
    const view = await this.view().catch((e: unknown) => {
      throw this.unreachable(e);
    });
    const relations = new Map<string, string>();
    for (const name of names) {
      const relation =
        name === 'costs'
          ? this.costsRelation(view, scope)
          : name === 'derived'
            ? this.derivedRelation(view, scope)
            : view.relation(name as LakeTable, scope.organizationId, scope.range ?? null);
      relations.set(
        name,
        await relation.catch((e: unknown) => {
          throw this.unreachable(e);
        }),
      );
    }
    return sql.replace(PLACEHOLDER, (_, name: string) => relations.get(name)!);
  }

  /** What this request reads the lake through: the manifests, or one snapshot of the open lake's catalog. */
  private async view(): Promise<LakeView> {
    return duckLakeView(this.duckLakeDays, await this.duckLakeDays.snapshot());
  }

  /** The lake's store or catalog out of reach as a 503; any other error as it is. */
  private unreachable(e: unknown): unknown {
    return isLakeUnreachable(e) ? new ServiceUnavailableError("The lake's store or catalog is unavailable; retry shortly") : e;
  }

  /** Raw events of the organization within a range (exact bounds), or all of them. */
  private async eventsWithin(view: LakeView, org: string, r: DateRange | null): Promise<string> {
    const rows = await view.relation('events', org, r);
    const bounds = r
      ? ` AND "event_timestamp" >= TIMESTAMP '${r.start.toISOString()}' AND "event_timestamp" < TIMESTAMP '${r.end.toISOString()}'`
      : '';
    return `(SELECT * FROM ${rows} WHERE "organization_id" = $org${bounds})`;
  }

  /** Whole-day rows of a derivation, from the DerivedCache (built per day on first use). Null when no day has data. */
  private async wholeDayRows(
    view: LakeView,
    d: Derivation,
    org: string,
    days: DateRange | null,
    only: RowSelection | undefined,
  ): Promise<string | null> {
    const files = await view.files(d.source, org, days);
    if (files.length === 0) return null;
    const dayFilter = days ? ` WHERE "event_date" >= ${dateLiteralSql(days.start)} AND "event_date" < ${dateLiteralSql(days.end)}` : '';
    const rel = await this.cache.relation(d, org, files, { only, source: view.source });
    return rel && `(SELECT * FROM ${rel}${dayFilter})`;
  }

  /** Whole days from `wholeDays`, partial days from `partial`, as one relation. */
  private async splitRelation(
    view: LakeView,
    scope: LakeScope,
    d: DimensionDerivation,
    hourly: Derivation,
    partial: (events: string) => string,
  ): Promise<string> {
    const org = scope.organizationId;
    if (!this.useRollups) return partial(await this.eventsWithin(view, org, scope.range ?? null));
    const split: DaySplit = scope.range ? splitWholeDays(scope.range) : { wholeDays: null, partial: [] };
    const parts: string[] = [];
    if (d.rollup && split.wholeDays) {
      // A defined dimension: the processor's rollup answers the days it covers (dimension-rollup-read.ts).
      parts.push(...(await dimensionWholeDayParts(view, this.cache, { ...d, rollup: d.rollup }, org, split.wholeDays, scope.only)));
    } else if (split.wholeDays || !scope.range) {
      const whole = await this.wholeDayRows(view, d, org, split.wholeDays, scope.only);
      if (whole) parts.push(whole);
    }
    for (const p of split.partial) {
      // A sub-day slice asked again comes from the edge cache (edge-cache.ts); computed, its whole
      // hours come from the hourly cache and only the sub-hour ends read events.
      const slice = async (): Promise<string> => {
        const hours = splitWholeHours(p);
        if (!hours.wholeHours) return partial(await this.eventsWithin(view, org, p));
        const out: string[] = [];
        const files = await view.files('events', org, hours.wholeHours);
        const rel = await this.cache.relation(hourly, org, files, { source: view.source });
        if (rel) {
          out.push(
            `(SELECT * REPLACE (CAST("event_date" AS DATE) AS "event_date") FROM ${rel}
               WHERE "event_date" >= TIMESTAMP '${hours.wholeHours.start.toISOString()}' AND "event_date" < TIMESTAMP '${hours.wholeHours.end.toISOString()}')`,
          );
        }
        for (const r of hours.partial) out.push(partial(await this.eventsWithin(view, org, r)));
        return out.length > 0 ? unionByName(out) : partial(await this.eventsWithin(view, org, p));
      };
      const files = await view.files('events', org, p);
      const params = d.params ?? {};
      parts.push(
        await this.edges.relation({ derivation: d.id, params, organizationId: org, start: p.start, end: p.end, files }, slice, {
          org,
          ...params,
        }),
      );
    }
    if (parts.length === 0) return partial(await this.eventsWithin(view, org, scope.range ?? null));
    return unionByName(parts);
  }

  /** daily_costs-shaped rows covering exactly the scope's range (all time without a range). */
  private costsRelation(view: LakeView, scope: LakeScope): Promise<string> {
    return this.splitRelation(view, scope, DAILY_COSTS_MERGED, HOURLY_COSTS, (events) => `(${rollupFromEventsSql(DAILY_COSTS, events)})`);
  }

  /** The scope's derivation over exactly its range. */
  private derivedRelation(view: LakeView, scope: LakeScope): Promise<string> {
    const d = scope.derived;
    if (!d) throw new Error('{{derived}} needs scope.derived');
    if (d.source !== 'events') throw new Error('a {{derived}} relation must derive from events');
    return this.splitRelation(view, scope, d, { ...d, id: `${d.id}@hour`, hourly: true }, (events) => {
      const src = `(SELECT *, CAST(NULL AS VARCHAR) AS filename FROM ${events})`;
      return `(SELECT * EXCLUDE (filename) FROM (${d.perDay.replaceAll('{{src}}', src)}))`;
    });
  }

  /**
   * Reads the catalog's snapshot and every organization's day versions at it, so the first request
   * finds them (api/lake/prepare-reads.ts).
   */
  async warmUp(): Promise<void> {
    this.refuseIfClosing();
    await this.duckLakeDays.readAll(await this.duckLakeDays.snapshot()).catch((e: unknown) => {
      throw this.unreachable(e);
    });
  }

  /** New requests are refused from close() on; background work already started may still connect. */
  private refuseIfClosing(): void {
    if (this.closing) throw new Error('LakeQuery is closed');
  }

  private async connection(): Promise<DuckDBConnection> {
    if (this.closed) throw new Error('LakeQuery is closed');
    this.leased++;
    try {
      return this.idle.pop() ?? (await this.instance.connect());
    } catch (e) {
      this.returned();
      throw e;
    }
  }

  private release(conn: DuckDBConnection): void {
    if (this.closed || this.idle.length >= 8) conn.closeSync();
    else this.idle.push(conn);
    this.returned();
  }

  private returned(): void {
    this.leased--;
    if (this.leased === 0) for (const wake of this.drained.splice(0)) wake();
  }

  /** Closes after the cache's background work (persisting derived days), waiting work included, is done. */
  async closeWhenIdle(): Promise<void> {
    await this.cache.idle();
    await this.close();
  }

  /**
   * Refuses new requests at once; the instance is closed once the work already running (queries,
   * the cache's started background work) has handed its connections back. Closing the instance
   * under a running background write crashed the process (SIGSEGV in DuckDB, one run in three
   * with three test files side by side), so no caller can do that.
   */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = (async () => {
      await this.cache.settled();
      this.closed = true;
      while (this.leased > 0) await new Promise<void>((resolve) => this.drained.push(resolve));
      for (const c of this.idle.splice(0)) c.closeSync();
      this.duckLake.close();
      fs.rmSync(this.tempDir, { recursive: true, force: true });
    })();
    return this.closing;
  }
}

/** The open lake for reading: attached, and its tables made when the api comes up before any processor. */
async function openDuckLakeReader(settings: LakeSettings, threads: number): Promise<OpenLake> {
  const lake = await openLake(settings, { threads });
  try {
    await ensureLakeTables(lake);
    return lake;
  } catch (e) {
    lake.close();
    throw e;
  }
}
