// Alert evaluation from the processor's own flushes (no polling of the lake). For each partition
// the processor notes every priced row; just before a batch goes to the lake, recordFlush():
//  1. adds the batch's cost to alert_daily_spend (organization × UTC day of the event × key: the
//     organization, end user, agent, workflow, and dimension values that some budget watches) in
//     ONE statement that also moves the partition's mark (alert_partition_marks): rows below the
//     mark are skipped, so a record consumed again after a crash or a failed lake write is never
//     counted twice, whatever the batching;
//  2. evaluates, organization by organization (one's failure never holds back another's), the
//     budgets of the organizations in the batch and sends what became true (budget-evaluation.ts),
//     the margins of the end users it names (margin-evaluation.ts), and `rate_card.missing` once
//     per model per day.
// Counting before the lake write means a batch is counted once even when the process dies between
// the two. A failed statement keeps its rows for the next flush of the partition (logged).
// The processor may run on a worker thread with the control plane over a port: statements only,
// no transactions, which is why each step is one statement.
// What the count settled can change later; spend-revisions.ts keeps it following the lake, once:
// a counted record stored differently after a failed lake write (refused and replaced by a
// stand-in, or priced again differently) is corrected when it is noted again (the rows counted
// but not yet confirmed written are kept per partition for that), and a re-pricing rewrite adds
// its differences in two phases around the lake's commit (beginRevision; reconcile() finishes one a
// crash interrupted, by the files the manifest lists or, on DuckLake, the revision ids the lake holds).
import type { Queryable } from '../../core/control/db.js';
import { isConnectionFailure } from '../../core/control/sql-errors.js';
import type { LakeEventRow } from '../../core/lake/events-schema.js';
import type { Logger } from '../../core/logger.js';
import { randomUUID } from 'node:crypto';
import { Big } from '../../core/money.js';
import { DIMENSION_SEPARATOR } from '../budgets/budgets.store.js';
import { evaluateBudgets } from './budget-evaluation.js';
import { evaluateEndUserMargins } from './margin-evaluation.js';
import { fireRateCardMissing } from './rate-card-missing.js';
import {
  applyCorrection,
  applyLandedRevisions,
  applyRevision,
  countedBelow,
  landedByFiles,
  landedByRevisionIds,
  prepareRevision,
  type RewriteLanded,
  sameSpend,
  SpendDeltas,
  spendKeysOf,
  addSpendSql,
  type SpendKeys,
  type SpendRevision,
} from './spend-revisions.js';
import { RewriteSpend } from './rewrite-spend.js';
import { utcDate } from '../../core/time.js';

export interface TallyRow extends SpendKeys {
  offset: number;
  eventId: string;
  pendingRateCard: boolean;
  /** What the missing rate card would price: the model, else the provider; with metric and unit for metric events. */
  model: string | null;
  provider: string | null;
  metric: string | null;
  unit: string | null;
}

/** Rows noted but not yet counted, per partition, are capped (the lake write path must not grow memory without end). */
const MAX_PENDING_ROWS = 200_000;
const WATCH_REFRESH_MS = 2_000;
/** Attempts within one flush at counting, and at each organization's evaluation on a connection failure, 250 ms and 500 ms apart. */
const EVALUATION_ATTEMPTS = 3;
const EVALUATION_RETRY_MS = 250;

/**
 * The CTE `m` moving a partition's mark to the flush's next offset (never back) and returning the
 * mark before it; with `condition`, only when it holds (no row returned otherwise).
 */
const markCte = (condition = '') => `m AS (
         INSERT INTO alert_partition_marks AS a (partition_id, next_offset, prev_offset) VALUES ($1, $2, 0)
         ON CONFLICT (partition_id) DO UPDATE SET prev_offset = a.next_offset, next_offset = greatest(a.next_offset, EXCLUDED.next_offset)
         ${condition}
         RETURNING prev_offset
       )`;

export class AlertTally {
  private readonly pending = new Map<number, TallyRow[]>();
  /** Per partition, rows counted whose lake write is not confirmed yet, by offset: what the spend holds for them. */
  private readonly counted = new Map<number, Map<number, TallyRow>>();
  /** Per partition, corrections not yet applied (kept across drops: the spend must reach what `counted` says). */
  private readonly corrections = new Map<number, SpendRevision[]>();
  /** Re-pricing revisions whose rewrite swapped in this process but whose apply failed: retried with each flush. */
  private readonly swapped = new Map<string, { organizationId: string; endUsers: string[] }>();
  /** Per partition, what its lake showed as landed (at load, or before a rewrite), until unapplied revisions are checked against it. */
  private readonly recovering = new Map<number, RewriteLanded>();
  /** organization → dimension keys some budget of it watches. */
  private watchedDimensions = new Map<string, string[]>();
  private watchedAt = 0;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A priced row joined the partition's buffer. */
  note(partition: number, row: LakeEventRow): void {
    let list = this.pending.get(partition);
    if (!list) this.pending.set(partition, (list = []));
    if (list.length >= MAX_PENDING_ROWS) {
      list.shift();
      this.logger.error({ partition }, 'alert tally: too many uncounted rows; the oldest is dropped (budgets will under-count)');
    }
    const tallied = this.tallyRowOf(row);
    list.push(tallied);
    this.revisit(partition, row.kafka_offset, tallied);
  }

  /** The record at `offset` leaves no row in the lake (dead-lettered without a stand-in). */
  noteAbsent(partition: number, offset: number): void {
    this.revisit(partition, offset, null);
  }

  /**
   * The partition's buffer was dropped (its rows will be consumed again). Rows counted and not
   * yet confirmed written are kept, to be compared with what comes again, unless the partition
   * went to another processor (`released`).
   */
  drop(partition: number, released = false): void {
    this.pending.delete(partition);
    if (released) {
      this.counted.delete(partition);
      this.recovering.delete(partition);
    }
  }

  /** The lake holds every record below `nextOffset`: what was counted for them stands. */
  written(partition: number, nextOffset: number): void {
    const counted = this.counted.get(partition);
    if (!counted) return;
    for (const offset of counted.keys()) if (offset < nextOffset) counted.delete(offset);
  }

  /**
   * A processor loaded the partition's lake (or is about to rewrite it): re-pricing revisions left
   * between the rewrite's commit and their apply (a crash, or a failure right after the commit)
   * are applied when the lake shows the rewrite landed: the files lake's manifest lists
   * `lakeFiles`; a DuckLake holds `revisionIds` (given, they decide). Never throws; what fails is
   * tried again with the next flush.
   */
  reconcile(partition: number, lakeFiles: Iterable<string>, revisionIds?: Iterable<string>): Promise<void> {
    this.recovering.set(partition, revisionIds ? landedByRevisionIds(revisionIds) : landedByFiles(lakeFiles));
    return this.settleRevisions(partition).then((organizations) => this.evaluateBudgetsOf(partition, organizations));
  }

  /**
   * A counted record came again (a lake write failed; the mark keeps it from counting twice): when
   * it is stored differently now (a stand-in for a record the lake refused, or priced anew), the
   * spend gets the difference, once, with the partition's next flush.
   */
  private revisit(partition: number, offset: number, next: TallyRow | null): void {
    const counted = this.counted.get(partition);
    const before = counted?.get(offset);
    if (!counted || !before || (next !== null && sameSpend(before, next))) return;
    const deltas = new SpendDeltas();
    deltas.add(before, new Big(before.cost).neg());
    if (next !== null) deltas.add(next);
    const queue = this.corrections.get(partition) ?? [];
    for (const [organizationId, list] of deltas.byOrganization()) queue.push({ id: randomUUID(), partition, organizationId, deltas: list });
    this.corrections.set(partition, queue);
    if (next === null) counted.delete(offset);
    else counted.set(offset, next);
  }

  /**
   * Applies what waits for the partition: corrections, revisions whose apply failed, and the check
   * of unapplied revisions after a load. Never throws; returns the organizations whose spend moved.
   */
  private async settleRevisions(partition: number): Promise<Set<string>> {
    const moved = new Set<string>();
    // In order; removed by identity, as a load and a flush may settle the partition at once (a
    // correction applied twice adds once: its id).
    const queue = this.corrections.get(partition) ?? [];
    for (const correction of [...queue]) {
      const done = await this.attempt(
        async () => (await applyCorrection(this.db, correction)) && moved.add(correction.organizationId),
        isConnectionFailure,
      );
      if (done !== true) {
        this.logger.warn({ err: done, partition }, 'budget spend correction failed; retried with the next flush');
        break;
      }
      const at = queue.indexOf(correction);
      if (at >= 0) queue.splice(at, 1);
    }
    for (const [id, revision] of [...this.swapped]) {
      const done = await this.attempt(() => applyRevision(this.db, id), isConnectionFailure);
      if (done !== true) continue;
      this.swapped.delete(id);
      moved.add(revision.organizationId);
    }
    const landed = this.recovering.get(partition);
    if (landed) {
      try {
        for (const organizationId of await applyLandedRevisions(this.db, partition, landed)) moved.add(organizationId);
        if (this.recovering.get(partition) === landed) this.recovering.delete(partition);
      } catch (err) {
        this.logger.warn({ err, partition }, 'unapplied budget spend revisions not checked; retried with the next flush');
      }
    }
    return moved;
  }

  /**
   * Before a lake rewrite of the partition (re-pricing, under the partition's lock, its buffer
   * flushed): counts what still waits below `upTo`, so that the rewrite's differences apply to
   * counted rows, and returns what follows the rewrite. Throws when the control plane cannot be
   * reached (the rewrite is then retried later).
   */
  async beginRevision(partition: number, organizationId: string, upTo: number): Promise<RewriteSpend> {
    const waiting = (this.pending.get(partition) ?? []).filter((r) => r.offset < upTo);
    if (waiting.length > 0) {
      await this.count(partition, upTo, waiting);
      this.pending.set(
        partition,
        (this.pending.get(partition) ?? []).filter((r) => r.offset >= upTo),
      );
    }
    return new RewriteSpend(
      { partition, organizationId, countedBelow: await countedBelow(this.db, partition) },
      {
        keysOf: (row) => this.tallyRowOf(row),
        prepare: (revision, files) => prepareRevision(this.db, revision, files),
        apply: async (revision, endUsers) => {
          const applied = await this.attempt(() => applyRevision(this.db, revision.id), isConnectionFailure);
          if (applied !== true) {
            this.swapped.set(revision.id, { organizationId, endUsers });
            this.logger.warn(
              { err: applied, partition, revisionId: revision.id },
              'budget spend revision not applied yet; retried with the next flush',
            );
            return;
          }
          const now = this.now();
          await this.isolated({ partition, organizationId }, () => evaluateBudgets(this.db, [organizationId], now));
          if (endUsers.length > 0)
            await this.isolated({ partition, organizationId }, () => evaluateEndUserMargins(this.db, organizationId, endUsers, now));
        },
      },
    );
  }

  /**
   * Counts the rows below `nextOffset`, then evaluates alerts organization by organization; never
   * throws. A failed count (the control plane busy or briefly away) is retried here a few times
   * before the lake write goes on, then left to the next flush: counting again is harmless (the
   * partition mark skips rows already counted). Each organization is evaluated on its own, so one
   * whose evaluation fails (say, an organization the control plane does not know) never holds back
   * another's alerts; a connection failure is retried, and the organization's next flush evaluates
   * it again in any case (budgets and margins from running totals; every alert fires once by key).
   * Corrections and revisions waiting for the partition are applied first (settleRevisions).
   */
  async recordFlush(partition: number, nextOffset: number): Promise<void> {
    const all = this.pending.get(partition) ?? [];
    const rows = all.filter((r) => r.offset < nextOffset);
    this.pending.set(
      partition,
      all.filter((r) => r.offset >= nextOffset),
    );
    this.refreshWatch();
    const moved = await this.settleRevisions(partition);
    // Only a lost connection is worth waiting for within the flush; any other failure goes to the next flush.
    const counted = await this.attempt(() => this.count(partition, nextOffset, rows), isConnectionFailure);
    if (counted !== true) {
      // Keep them for the next flush: rows at or above the mark still count then.
      this.pending.set(partition, [...rows, ...(this.pending.get(partition) ?? [])]);
      this.logger.warn({ err: counted, partition }, 'alert tally failed; retried with the next flush');
      return;
    }
    if (rows.length === 0) return this.evaluateBudgetsOf(partition, moved);
    const now = this.now();
    const organizations = byOrganization(rows);
    // Budgets in one pass for every organization in the batch (budgets exist only for known
    // organizations); on a retry after the count went through, the mark makes it add nothing, yet
    // the budgets still need a look, hence every organization and not only those the count touched.
    await this.isolated({ partition }, () => evaluateBudgets(this.db, [...new Set([...organizations.keys(), ...moved])], now));
    for (const [organizationId, ofOrganization] of organizations) {
      await this.isolated({ partition, organizationId }, () => this.evaluateOrganization(organizationId, ofOrganization, now));
    }
  }

  private async evaluateBudgetsOf(partition: number, organizations: Set<string>): Promise<void> {
    if (organizations.size === 0) return;
    const now = this.now();
    await this.isolated({ partition }, () => evaluateBudgets(this.db, [...organizations], now));
  }

  /** Runs one evaluation; a failure is logged, held back from the rest, and met again by the next flush. */
  private async isolated(context: { partition: number; organizationId?: string }, work: () => Promise<unknown>): Promise<void> {
    const done = await this.attempt(work, isConnectionFailure);
    if (done !== true) this.logger.warn({ err: done, ...context }, 'alert evaluation failed; the next flush evaluates it again');
  }

  /** Runs `work` up to EVALUATION_ATTEMPTS times while `retryable` says so: true, or the last error. */
  private async attempt(work: () => Promise<unknown>, retryable: (err: unknown) => boolean): Promise<true | unknown> {
    for (let attempt = 1; ; attempt++) {
      try {
        await work();
        return true;
      } catch (err) {
        if (attempt >= EVALUATION_ATTEMPTS || !retryable(err)) return err;
        await new Promise((resolve) => setTimeout(resolve, EVALUATION_RETRY_MS * attempt));
      }
    }
  }

  /** An organization's end-user margins and missing rate cards: the alerts that write for it alone. */
  private async evaluateOrganization(organizationId: string, rows: readonly TallyRow[], now: Date): Promise<void> {
    const users = [...new Set(rows.flatMap((r) => (r.endUser === null ? [] : [r.endUser])))];
    if (users.length > 0) await evaluateEndUserMargins(this.db, organizationId, users, now);
    await fireRateCardMissing(
      this.db,
      rows.filter((r) => r.pendingRateCard),
      now,
    );
  }

  private tallyRowOf(row: LakeEventRow): TallyRow {
    const keys = this.watchedDimensions.get(row.organization_id);
    const dimensions: string[] = [];
    if (keys && row.metadata) {
      const metadata = JSON.parse(row.metadata) as Record<string, unknown>;
      for (const k of keys) {
        const v = metadata[k];
        if (v !== undefined && v !== null) dimensions.push(`${k}${DIMENSION_SEPARATOR}${typeof v === 'string' ? v : JSON.stringify(v)}`);
      }
    }
    return {
      offset: row.kafka_offset,
      organizationId: row.organization_id,
      eventId: row.event_id,
      day: utcDate(row.event_timestamp),
      cost: row.total_cost,
      endUser: row.user_id,
      agent: row.agent_id,
      workflow: row.workflow_id,
      dimensions,
      pendingRateCard: row.status === 'pending_rate_card',
      model: row.model,
      provider: row.provider,
      metric: row.metric,
      unit: row.unit,
    };
  }

  /** Reloads which dimensions budgets watch, at most every 2 s, in the background. */
  private refreshWatch(): void {
    if (this.refreshing || Date.now() - this.watchedAt < WATCH_REFRESH_MS) return;
    this.refreshing = this.db
      .query<{ organization_id: string; keys: string[] }>(
        `SELECT organization_id, array_agg(DISTINCT dimension_key) AS keys FROM budgets
          WHERE scope = 'dimension' AND deleted_at IS NULL GROUP BY organization_id`,
      )
      .then((rows) => {
        this.watchedDimensions = new Map(rows.map((r) => [r.organization_id, r.keys]));
        this.watchedAt = Date.now();
      })
      .catch((err) => this.logger.warn({ err }, 'alert tally: could not read watched dimensions'))
      .finally(() => (this.refreshing = null));
  }

  /**
   * One statement moves the mark and adds the rows at or above the old mark. A usual flush (none of
   * its rows counted before: the mark is at or below its lowest offset) sends one sum per key
   * (countSums); a flush holding rows counted before (consumed again after a crash or a failed lake
   * write) sends every row and the statement skips those below the mark (countRows). The rows it
   * counted are remembered until their lake write is confirmed (written()).
   */
  private async count(partition: number, nextOffset: number, rows: TallyRow[]): Promise<void> {
    const from =
      rows.length > 0 && (await this.countSums(partition, nextOffset, rows)) ? 0 : await this.countRows(partition, nextOffset, rows);
    let counted = this.counted.get(partition);
    if (!counted) this.counted.set(partition, (counted = new Map()));
    for (const r of rows) if (r.offset >= from) counted.set(r.offset, r);
  }

  /**
   * Adds the rows' sums per (organization, day, key) and moves the mark, only if the mark is at or
   * below the lowest offset of `rows` (so every row counts); returns whether it did. One parameter
   * row per key instead of one per event and key: the control plane's share of a flush.
   */
  private async countSums(partition: number, nextOffset: number, rows: readonly TallyRow[]): Promise<boolean> {
    const lowest = rows.reduce((min, r) => Math.min(min, r.offset), Infinity);
    const sums = new SpendDeltas(true);
    for (const r of rows) sums.add(r);
    const keys = [...sums.byOrganization()].flatMap(([org, deltas]) => deltas.map((d) => ({ org, ...d })));
    const moved = await this.db.query<{ prev_offset: string | number }>(
      `WITH ${markCte('WHERE a.next_offset <= $3')},
       up AS (
         ${addSpendSql(`SELECT k.org, k.day, k.kind, k.value, k.cost
           FROM unnest($4::uuid[], $5::date[], $6::text[], $7::text[], $8::numeric[]) AS k(org, day, kind, value, cost)
          WHERE EXISTS (SELECT 1 FROM m)`)}
       )
       SELECT prev_offset FROM m`,
      [
        partition,
        nextOffset,
        lowest,
        keys.map((k) => k.org),
        keys.map((k) => k.day),
        keys.map((k) => k.kind),
        keys.map((k) => k.value),
        keys.map((k) => k.cost),
      ],
    );
    return moved.length > 0;
  }

  /** Moves the mark and adds each row at or above the old mark; returns the old mark. */
  private async countRows(partition: number, nextOffset: number, rows: readonly TallyRow[]): Promise<number> {
    // One parameter row per event and key (the keys from spendKeysOf, as countSums has them).
    const keyed = rows.flatMap((r) => spendKeysOf(r).map((k) => ({ r, ...k })));
    const [mark] = await this.db.query<{ prev_offset: string | number }>(
      `WITH ${markCte()},
       up AS (
         ${addSpendSql(`SELECT k.org, k.day, k.kind, k.value, sum(k.cost)
           FROM unnest($3::bigint[], $4::uuid[], $5::date[], $6::text[], $7::text[], $8::numeric[]) AS k(off, org, day, kind, value, cost)
          WHERE k.off >= (SELECT prev_offset FROM m)
          GROUP BY k.org, k.day, k.kind, k.value`)}
       )
       SELECT prev_offset FROM m`,
      [
        partition,
        nextOffset,
        keyed.map(({ r }) => r.offset),
        keyed.map(({ r }) => r.organizationId),
        keyed.map(({ r }) => r.day),
        keyed.map((k) => k.kind),
        keyed.map((k) => k.value),
        keyed.map(({ r }) => r.cost),
      ],
    );
    return Number(mark?.prev_offset ?? 0);
  }
}

/** The rows of each organization, in order of first appearance. */
function byOrganization(rows: readonly TallyRow[]): Map<string, TallyRow[]> {
  const out = new Map<string, TallyRow[]>();
  for (const r of rows) {
    let list = out.get(r.organizationId);
    if (!list) out.set(r.organizationId, (list = []));
    list.push(r);
  }
  return out;
}
