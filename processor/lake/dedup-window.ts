// Event-id de-duplication for one partition. Ingest's sweeper may publish an event a second time
// (its first publish succeeded but was not acknowledged); both copies have the same event_id,
// organization and therefore partition. The window holds the ids of events received within
// `retentionMs` of the newest received_at seen (not the wall clock, so replays behave the same),
// capped at `maxEntries`. It is rebuilt from the partition's own lake files (or its rows of the open
// lake's events table) when the partition is assigned, so a crash loses nothing: the lake holds
// exactly what was committed.
import type { DuckDBConnection } from '@duckdb/node-api';
import { absolutePath } from '../../core/lake/layout.js';
import type { Manifest } from '../../core/lake/manifest.js';
import { parquetRelationSql } from '../../core/lake/parquet-sql.js';
import { EVENTS_COLUMNS } from '../../core/lake/events-schema.js';

export interface DedupWindowOptions {
  /** Default 24 h: far longer than the sweeper's re-publish delay. */
  retentionMs?: number;
  /** Default 1,000,000 ids (~100 MB at most) per partition. */
  maxEntries?: number;
}

export class DedupWindow {
  readonly retentionMs: number;
  readonly maxEntries: number;
  // Insertion order ≈ offset order ≈ received order, so the oldest ids sit at the front.
  private readonly ids = new Map<string, number>();
  private newest = -Infinity;

  constructor(options: DedupWindowOptions = {}) {
    this.retentionMs = options.retentionMs ?? 24 * 3600_000;
    this.maxEntries = options.maxEntries ?? 1_000_000;
  }

  get size(): number {
    return this.ids.size;
  }

  has(eventId: string): boolean {
    return this.ids.has(eventId);
  }

  add(eventId: string, receivedAtMs: number): void {
    this.ids.set(eventId, receivedAtMs);
    if (receivedAtMs > this.newest) this.newest = receivedAtMs;
  }

  /** Adds the id unless the window has it; false means a duplicate. */
  addNew(eventId: string, receivedAtMs: number): boolean {
    if (this.ids.has(eventId)) return false;
    this.add(eventId, receivedAtMs);
    return true;
  }

  /** The newest received_at seen, to hand back to forget(). */
  get newestReceivedMs(): number {
    return this.newest;
  }

  /** Undoes addNew() of ids whose write failed; `newest` is newestReceivedMs from before them. */
  forget(eventIds: Iterable<string>, newest: number): void {
    for (const id of eventIds) this.ids.delete(id);
    this.newest = newest;
  }

  /** Drop ids that fell out of the window; call after a batch of adds. */
  evict(): void {
    const cutoff = this.newest - this.retentionMs;
    for (const [id, receivedAt] of this.ids) {
      if (this.ids.size <= this.maxEntries && receivedAt >= cutoff) break;
      this.ids.delete(id);
    }
  }

  /** Refill from the events files of a partition's manifest (the state after its last flush). */
  async rebuild(conn: DuckDBConnection, lakeDir: string, manifest: Manifest): Promise<void> {
    this.ids.clear();
    this.newest = -Infinity;
    const events = manifest.files.filter((f) => f.table === 'events');
    if (events.length === 0) return;
    const newest = Math.max(...events.map((f) => Date.parse(f.max_received_at)));
    const cutoff = newest - this.retentionMs;
    const files = events.filter((f) => Date.parse(f.max_received_at) >= cutoff).map((f) => absolutePath(lakeDir, f.path));
    const source = parquetRelationSql(files, EVENTS_COLUMNS);
    await this.fill(conn, source, `received_at >= epoch_ms(CAST(${cutoff} AS BIGINT))`);
  }

  /** Refill from the partition's rows of the open lake's events table (DuckLake, attached as `lake`). */
  async rebuildFromLake(conn: DuckDBConnection, partition: number): Promise<void> {
    this.ids.clear();
    this.newest = -Infinity;
    const own = `kafka_partition = ${Math.trunc(partition)}`;
    await this.fill(
      conn,
      'lake.events',
      `${own} AND received_at >= (SELECT max(received_at) FROM lake.events WHERE ${own}) - to_milliseconds(CAST(${this.retentionMs} AS BIGINT))`,
    );
  }

  /** Adds the newest maxEntries ids of `source` matching `where`, oldest first. */
  private async fill(conn: DuckDBConnection, source: string, where: string): Promise<void> {
    const reader = await conn.runAndReadAll(
      `SELECT event_id, CAST(epoch_ms(received_at) AS DOUBLE) AS received_ms FROM ${source}
       WHERE ${where} ORDER BY kafka_offset DESC LIMIT ${this.maxEntries}`,
    );
    const rows = reader.getRows();
    for (let i = rows.length - 1; i >= 0; i--) this.add(rows[i]![0] as string, rows[i]![1] as number);
  }
}
