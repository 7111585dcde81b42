// The scheduled-export runner: a tick in each api process (every minute) that (1) makes each
// period a schedule owes a pending run, (2) claims due runs one at a time with a lease
// (export-schedules.store.ts), (3) writes the period's file to a staging file under DATA_DIR and
// publishes it at the period's object key (export-files.ts: rename, or S3's whole-object upload),
// (4) records the outcome and its webhook (export.completed, or export.failed after the last
// attempt) in one transaction through the alert outbox. Exactly once as readers see it: the key is
// fixed per period, so an attempt killed after (3) and before (4) is claimed again when its lease
// passes and writes the same object again; a stale attempt cannot record anything (the store
// checks the attempt number). Failed attempts wait core/backoff's schedule.
import fs from 'node:fs';
import path from 'node:path';
import { unsealSecret } from '../../core/auth/secrets.js';
import { backoffStepMs, type BackoffSchedule } from '../../core/backoff.js';
import type { ControlDb } from '../../core/control/db.js';
import type { Logger } from '../../core/logger.js';
import { PeriodicPass } from '../../core/periodic-pass.js';
import { SecretValue } from '../../core/secret-value.js';
import { fireOnce } from '../../alerts/webhooks/outbox.js';
import type { LakeQuery } from '../lake/lake-query.js';
import { publishParquet, writeFocusParquet, type ExportTarget } from './export-files.js';
import { objectKey, owedPeriods } from './export-schedules.js';
import {
  claimRun,
  ensureRun,
  failAttempt,
  getSchedule,
  listSchedules,
  succeedRun,
  type RunRecord,
  type ScheduleRecord,
} from './export-schedules.store.js';
import { copyLakeRows } from './exports.queries.js';
import { focusRowsIn } from './exports.service.js';

export interface ExportRunnerDeps {
  db: ControlDb;
  lake: LakeQuery;
  masterKey: Buffer;
  /** Folder destinations and the staging folder are under it. */
  dataDir: string;
  extensionDirectory: string;
}

export interface ExportRunnerOptions {
  /** Time between ticks; default 1 minute; 0 = no tick. */
  intervalMs?: number;
  /** How long after a period ends it is exported (late events); default 1 hour. */
  settleMs?: number;
  /** How long a claimed run is its attempt's before another may take it; default 15 minutes. */
  leaseMs?: number;
  /** Attempts before a run fails for good; default 5. */
  maxAttempts?: number;
  /** Wait before each retry; default 1 minute doubling to 1 hour. */
  backoff?: BackoffSchedule;
}

const DEFAULTS = {
  intervalMs: 60_000,
  settleMs: 3_600_000,
  leaseMs: 15 * 60_000,
  maxAttempts: 5,
  backoff: { firstMs: 60_000, maxMs: 3_600_000 },
};
/** Runs one tick goes through at most (the rest wait for the next). */
const RUNS_PER_TICK = 20;

/** Associated data of a schedule's sealed S3 secret: bound to organization and schedule, so a sealed value cannot be moved. */
export const exportSecretAad = (organizationId: string, scheduleId: string) => `export_schedules:${organizationId}:${scheduleId}`;

function targetOf(deps: ExportRunnerDeps, s: ScheduleRecord, key: string): ExportTarget {
  const d = s.destination;
  if (d.type === 'folder') return { type: 'folder', file: path.join(deps.dataDir, d.path, key) };
  const secret = unsealSecret(deps.masterKey, s.secret_key_sealed ?? '', exportSecretAad(s.organization_id, s.id));
  return {
    type: 's3',
    bucket: d.bucket,
    key,
    access: {
      region: d.region,
      endpoint: d.endpoint,
      useSsl: d.use_ssl,
      urlStyle: d.url_style,
      accessKeyId: d.access_key_id,
      secretAccessKey: new SecretValue(secret),
      sessionToken: null,
    },
  };
}

/** Step (3): the period's file written and published at its key; its rows and bytes. */
export async function writeExportRun(deps: ExportRunnerDeps, s: ScheduleRecord, run: RunRecord): Promise<{ rows: number; bytes: number }> {
  const staging = path.join(deps.dataDir, 'exports-staging');
  fs.mkdirSync(staging, { recursive: true });
  // What a killed earlier attempt of this run left behind is not needed any more.
  for (const name of fs.readdirSync(staging)) if (name.startsWith(`${run.id}-`)) fs.rmSync(path.join(staging, name), { force: true });
  const staged = path.join(staging, `${run.id}-${run.attempts}.parquet`);
  const scope = {
    organizationId: s.organization_id,
    range: { start: new Date(`${run.period_start}T00:00:00Z`), end: new Date(`${run.period_end}T00:00:00Z`) },
  };
  try {
    let rows: number;
    if (s.kind === 'focus') {
      const focus = await focusRowsIn({ db: deps.db, lake: deps.lake, organizationId: s.organization_id }, scope.range, s.dimensions);
      await writeFocusParquet(focus, staged, deps.extensionDirectory);
      rows = focus.length;
    } else {
      rows = await copyLakeRows(deps.lake, scope, s.kind, staged);
    }
    const bytes = await publishParquet(staged, targetOf(deps, s, run.object_key), deps.extensionDirectory);
    return { rows, bytes };
  } finally {
    fs.rmSync(staged, { force: true });
  }
}

function eventData(s: ScheduleRecord, run: RunRecord) {
  return {
    schedule_id: s.id,
    run_id: run.id,
    kind: s.kind,
    frequency: s.frequency,
    period_start: run.period_start,
    period_end: run.period_end,
    object_key: run.object_key,
    attempts: run.attempts,
  };
}

/** Steps (3) and (4) for a claimed run; returns its status afterwards. */
async function executeExportRun(
  deps: ExportRunnerDeps,
  run: RunRecord,
  now: () => Date,
  options: ExportRunnerOptions = {},
): Promise<RunRecord['status']> {
  const o = { ...DEFAULTS, ...options };
  const s = await getSchedule(deps.db, run.schedule_id);
  if (!s) return 'failed'; // deleted meanwhile: its runs went with it
  try {
    const { rows, bytes } = await writeExportRun(deps, s, run);
    await deps.db.transaction(async (tx) => {
      if (await succeedRun(tx, run, rows, bytes, now())) {
        await fireOnce(tx, s.organization_id, `export.completed:${run.id}`, 'export.completed', { ...eventData(s, run), rows, bytes });
      }
    });
    return 'succeeded';
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    const last = run.attempts >= o.maxAttempts;
    const retryAt = last ? null : new Date(now().getTime() + backoffStepMs(run.attempts - 1, o.backoff));
    await deps.db.transaction(async (tx) => {
      if ((await failAttempt(tx, run, error.slice(0, 2000), retryAt, now())) && last) {
        await fireOnce(tx, s.organization_id, `export.failed:${run.id}`, 'export.failed', {
          ...eventData(s, run),
          error: error.slice(0, 500),
        });
      }
    });
    return last ? 'failed' : 'pending';
  }
}

/** Step (1): each period a schedule owes becomes a pending run (once). */
export async function planExportRuns(db: ControlDb, now: Date, settleMs = DEFAULTS.settleMs): Promise<void> {
  for (const s of await listSchedules(db, null)) {
    for (const period of owedPeriods(s.frequency, new Date(s.created_at), now, settleMs)) {
      await ensureRun(db, s, period, objectKey({ organizationId: s.organization_id, ...s }, period), now);
    }
  }
}

/** One tick: due periods become runs, then due runs are executed one by one. Returns the runs executed. */
export async function runExportTick(deps: ExportRunnerDeps, now: () => Date, options: ExportRunnerOptions = {}): Promise<number> {
  const o = { ...DEFAULTS, ...options };
  await planExportRuns(deps.db, now(), o.settleMs);
  let executed = 0;
  for (; executed < RUNS_PER_TICK; executed++) {
    const run = await claimRun(deps.db, now(), o.leaseMs);
    if (!run) break;
    await executeExportRun(deps, run, now, o);
  }
  return executed;
}

/** Runs runExportTick every intervalMs (the first one interval after start; never two at once) until stop(). */
export function startExportRunner(deps: ExportRunnerDeps, now: () => Date, logger: Logger, options: ExportRunnerOptions = {}) {
  const intervalMs = options.intervalMs ?? DEFAULTS.intervalMs;
  const pass = new PeriodicPass(
    () => runExportTick(deps, now, options),
    (err) => logger.warn({ err }, 'scheduled exports failed; next tick retries'),
    { firstPassAfterMs: intervalMs, intervalMs },
  );
  if (intervalMs > 0) pass.start();
  return pass;
}
