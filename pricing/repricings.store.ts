// Re-pricing jobs in the control plane: what was asked (organization, range, the rates_version
// then, the lake partitions to re-price) and each partition's result once its rewrite committed.
// A job is completed in the same transaction that records its last partition. Recording a
// partition again (a processor re-ran it after a crash) replaces its result, never adds to it.
import { NotFoundError } from '../core/errors.js';
import { isUuid } from '../core/ids.js';
import type { Queryable } from '../core/control/db.js';

type RepricingStatus = 'running' | 'completed';

export interface PartitionResult {
  partition: number;
  rowsExamined: number;
  rowsChanged: number;
  /** Sum of total_cost of the examined events before and after, USD decimal strings. */
  costBefore: string;
  costAfter: string;
  finishedAt: Date;
}

export interface Repricing {
  id: string;
  organizationId: string;
  start: Date;
  end: Date;
  ratesVersion: number;
  partitions: number[];
  eventsTotal: number;
  /** Events examined so far by each partition still running, by partition number. */
  inFlight: Map<number, number>;
  status: RepricingStatus;
  createdAt: Date;
  completedAt: Date | null;
  done: PartitionResult[];
}

interface RepricingRow {
  id: string;
  organization_id: string;
  start_at: Date;
  end_at: Date;
  rates_version: string;
  partitions: number[] | string;
  events_total: string;
  in_flight: Record<string, number> | string;
  status: RepricingStatus;
  created_at: Date;
  completed_at: Date | null;
}

interface PartitionRow {
  repricing_id: string;
  kafka_partition: number;
  rows_examined: string;
  rows_changed: string;
  cost_before: string;
  cost_after: string;
  finished_at: Date;
}

const COLUMNS =
  'id, organization_id, start_at, end_at, rates_version, partitions, events_total, in_flight, status, created_at, completed_at';

function toRepricing(r: RepricingRow, done: PartitionRow[]): Repricing {
  return {
    id: r.id,
    organizationId: r.organization_id,
    start: r.start_at,
    end: r.end_at,
    ratesVersion: Number(r.rates_version),
    partitions: typeof r.partitions === 'string' ? (JSON.parse(r.partitions) as number[]) : r.partitions,
    eventsTotal: Number(r.events_total),
    inFlight: new Map(
      Object.entries(typeof r.in_flight === 'string' ? (JSON.parse(r.in_flight) as Record<string, number>) : r.in_flight).map(([k, v]) => [
        Number(k),
        Number(v),
      ]),
    ),
    status: r.status,
    createdAt: r.created_at,
    completedAt: r.completed_at,
    done: done
      .filter((d) => d.repricing_id === r.id)
      .map((d) => ({
        partition: d.kafka_partition,
        rowsExamined: Number(d.rows_examined),
        rowsChanged: Number(d.rows_changed),
        costBefore: d.cost_before,
        costAfter: d.cost_after,
        finishedAt: d.finished_at,
      }))
      .sort((a, b) => a.partition - b.partition),
  };
}

async function withPartitions(db: Queryable, rows: RepricingRow[]): Promise<Repricing[]> {
  if (rows.length === 0) return [];
  const done = await db.query<PartitionRow>(
    `SELECT repricing_id, kafka_partition, rows_examined, rows_changed, cost_before, cost_after, finished_at
       FROM repricing_partitions WHERE repricing_id = ANY($1::uuid[])`,
    [rows.map((r) => r.id)],
  );
  return rows.map((r) => toRepricing(r, done));
}

export interface RepricingInput {
  start: Date;
  end: Date;
  ratesVersion: number;
  partitions: number[];
  eventsTotal: number;
}

/** A new job; completed at once when no partition holds events to re-price. */
export async function createRepricing(db: Queryable, organizationId: string, input: RepricingInput): Promise<Repricing> {
  const [row] = await db.query<RepricingRow>(
    `INSERT INTO repricings (organization_id, start_at, end_at, rates_version, partitions, events_total, status, completed_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, CASE WHEN $7 = 'completed' THEN now() END)
     RETURNING ${COLUMNS}`,
    [
      organizationId,
      input.start,
      input.end,
      input.ratesVersion,
      JSON.stringify([...input.partitions].sort((a, b) => a - b)),
      input.eventsTotal,
      input.partitions.length === 0 ? 'completed' : 'running',
    ],
  );
  return toRepricing(row!, []);
}

export async function getRepricing(db: Queryable, organizationId: string, id: string): Promise<Repricing> {
  if (!isUuid(id) || !isUuid(organizationId)) throw new NotFoundError('repricing', id);
  const rows = await db.query<RepricingRow>(`SELECT ${COLUMNS} FROM repricings WHERE organization_id = $1 AND id = $2`, [
    organizationId,
    id,
  ]);
  const [job] = await withPartitions(db, rows);
  if (!job) throw new NotFoundError('repricing', id);
  return job;
}

/** The organization's jobs, newest first. */
export async function listRepricings(db: Queryable, organizationId: string): Promise<Repricing[]> {
  if (!isUuid(organizationId)) return [];
  const rows = await db.query<RepricingRow>(`SELECT ${COLUMNS} FROM repricings WHERE organization_id = $1 ORDER BY created_at DESC, id`, [
    organizationId,
  ]);
  return withPartitions(db, rows);
}

/** Every running job (one cheap query per processor tick). */
export async function listRunningRepricings(db: Queryable): Promise<Repricing[]> {
  const rows = await db.query<RepricingRow>(`SELECT ${COLUMNS} FROM repricings WHERE status = 'running' ORDER BY created_at, id`);
  return withPartitions(db, rows);
}

/**
 * Records one partition's result (replacing an earlier one) and completes the job when it was the
 * last, in one statement (the update cannot see the row its CTE inserts, so it counts this
 * partition as done by its number).
 */
export async function recordRepricedPartition(
  db: Queryable,
  repricingId: string,
  result: Omit<PartitionResult, 'finishedAt'>,
): Promise<void> {
  await db.query(
    `WITH recorded AS (
       INSERT INTO repricing_partitions (repricing_id, kafka_partition, rows_examined, rows_changed, cost_before, cost_after)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (repricing_id, kafka_partition) DO UPDATE SET
         rows_examined = EXCLUDED.rows_examined, rows_changed = EXCLUDED.rows_changed,
         cost_before = EXCLUDED.cost_before, cost_after = EXCLUDED.cost_after, finished_at = now()
       RETURNING repricing_id)
     UPDATE repricings r SET status = 'completed', completed_at = now()
      WHERE r.id = (SELECT repricing_id FROM recorded) AND r.status = 'running'
        AND NOT EXISTS (
          SELECT 1 FROM jsonb_array_elements_text(r.partitions) p
           WHERE p::integer <> $2
             AND NOT EXISTS (SELECT 1 FROM repricing_partitions d WHERE d.repricing_id = r.id AND d.kafka_partition = p::integer))`,
    [repricingId, result.partition, result.rowsExamined, result.rowsChanged, result.costBefore, result.costAfter],
  );
}

/** How many events a running partition has examined so far (progress only; overwritten by each report). */
export async function reportRepricingProgress(db: Queryable, repricingId: string, partition: number, examined: number): Promise<void> {
  await db.query(
    `UPDATE repricings SET in_flight = in_flight || jsonb_build_object($2::text, $3::bigint) WHERE id = $1 AND status = 'running'`,
    [repricingId, String(partition), examined],
  );
}
