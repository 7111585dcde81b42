// The rules of scheduled exports, over plain data: a schedule's input checked (destination,
// S3 access), which period is due (the latest whole UTC day or month, once it has settled), and
// the object key of a period — a function of organization, kind, frequency and period only, so a
// re-run writes the same key and replaces the object. Pure.
import path from 'node:path';
import { ValidationError } from '../../core/errors.js';
import { requireText } from '../../core/http/input.js';
import { addUtcMonths, DAY_MS, parseDateParam, utcDate } from '../../core/time.js';
import { parseDimensions } from './exports.service.js';
import type { CreateExportScheduleBody, ExportFrequency, ExportKind } from './exports.types.js';

const KINDS: readonly ExportKind[] = ['focus', 'events', 'rollups'];
const FREQUENCIES: readonly ExportFrequency[] = ['daily', 'monthly'];
/** S3's bucket naming rule (3–63 lowercase letters, digits, dots and hyphens). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const HOST_PORT = /^[A-Za-z0-9.-]+(:\d{1,5})?$/;

/** Where a schedule writes, as stored (the secret key apart, sealed). */
export type ExportDestination =
  | {
      type: 's3';
      bucket: string;
      /** '' or ending in '/'. */
      prefix: string;
      region: string;
      endpoint: string | null;
      use_ssl: boolean;
      url_style: 'path' | 'vhost';
      access_key_id: string;
      secret_key_hint: string;
    }
  /** A folder relative to DATA_DIR. */
  | { type: 'folder'; path: string };

export interface ScheduleInput {
  kind: ExportKind;
  frequency: ExportFrequency;
  destination: ExportDestination;
  /** The S3 secret key in clear, to be sealed; null for a folder. */
  secretAccessKey: string | null;
  /** A FOCUS schedule's metadata keys (parseDimensions' rule); [] for events and rollups. */
  dimensions: string[];
}

function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new ValidationError(field, `must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function s3Destination(url: string, body: CreateExportScheduleBody): ExportDestination {
  const rest = url.slice('s3://'.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const prefix = (slash < 0 ? '' : rest.slice(slash + 1)).replace(/^\/+|\/+$/g, '');
  if (!BUCKET.test(bucket)) throw new ValidationError('destination', 'must name an S3 bucket: s3://bucket/prefix');
  const s3 = body.s3;
  if (!s3) throw new ValidationError('s3', 'is required with an s3:// destination (access_key_id, secret_access_key)');
  const endpoint = s3.endpoint === undefined ? null : requireText('s3.endpoint', s3.endpoint, 255);
  if (endpoint !== null && !HOST_PORT.test(endpoint)) throw new ValidationError('s3.endpoint', 'must be host[:port]');
  const secret = requireText('s3.secret_access_key', s3.secret_access_key, 1024);
  return {
    type: 's3',
    bucket,
    prefix: prefix === '' ? '' : `${prefix}/`,
    region: s3.region === undefined ? 'us-east-1' : requireText('s3.region', s3.region, 64),
    endpoint,
    use_ssl: s3.use_ssl ?? true,
    url_style: s3.url_style === undefined ? (endpoint ? 'path' : 'vhost') : oneOf('s3.url_style', s3.url_style, ['path', 'vhost']),
    access_key_id: requireText('s3.access_key_id', s3.access_key_id, 255),
    secret_key_hint: secret.slice(-4),
  };
}

/** A folder under DATA_DIR: relative, and never climbing out of it. */
function folderDestination(raw: string, body: CreateExportScheduleBody): ExportDestination {
  if (body.s3 !== undefined) throw new ValidationError('s3', 'is only for an s3:// destination');
  const normalized = path.posix.normalize(raw.replaceAll('\\', '/')).replace(/\/+$/, '');
  if (path.posix.isAbsolute(normalized) || normalized === '.' || normalized === '..' || normalized.startsWith('../')) {
    throw new ValidationError('destination', 'must be s3://bucket/prefix or a folder inside DATA_DIR (relative, without ..)');
  }
  return { type: 'folder', path: normalized };
}

export function parseScheduleInput(body: CreateExportScheduleBody): ScheduleInput {
  const kind = oneOf('kind', body.kind, KINDS);
  const frequency = oneOf('frequency', body.frequency, FREQUENCIES);
  const raw = requireText('destination', body.destination, 1024);
  const destination = raw.startsWith('s3://') ? s3Destination(raw, body) : folderDestination(raw, body);
  if (body.dimensions !== undefined && kind !== 'focus') throw new ValidationError('dimensions', 'is only for kind focus');
  return {
    kind,
    frequency,
    destination,
    secretAccessKey: destination.type === 's3' ? body.s3!.secret_access_key : null,
    dimensions: parseDimensions(body.dimensions),
  };
}

export interface ExportPeriod {
  /** UTC date, inclusive. */
  start: string;
  /** UTC date, exclusive. */
  end: string;
}

/**
 * The period a schedule exports at `now`: the latest whole UTC day (or month) that ended at least
 * `settleMs` ago, so events that arrive a little late are in it.
 */
export function duePeriod(frequency: ExportFrequency, now: Date, settleMs: number): ExportPeriod {
  const settled = new Date(now.getTime() - settleMs);
  if (frequency === 'daily') {
    const end = Math.floor(settled.getTime() / DAY_MS) * DAY_MS;
    return { start: utcDate(new Date(end - DAY_MS)), end: utcDate(new Date(end)) };
  }
  const end = new Date(Date.UTC(settled.getUTCFullYear(), settled.getUTCMonth(), 1));
  return { start: utcDate(addUtcMonths(end, -1)), end: utcDate(end) };
}

/** How many past periods a tick makes sure of (a process down for a while catches up on them). */
const CATCH_UP: Record<ExportFrequency, number> = { daily: 31, monthly: 12 };

/**
 * The periods a schedule made at `createdAt` owes at `now`, oldest first: from the one due when it
 * was made to the one due now, at most the last 31 days or 12 months.
 */
export function owedPeriods(frequency: ExportFrequency, createdAt: Date, now: Date, settleMs: number): ExportPeriod[] {
  const first = duePeriod(frequency, createdAt, settleMs).start;
  const out: ExportPeriod[] = [];
  let p = duePeriod(frequency, now, settleMs);
  while (out.length < CATCH_UP[frequency] && p.start >= first) {
    out.unshift(p);
    p = duePeriod(frequency, new Date(`${p.start}T00:00:00Z`), 0);
  }
  return out;
}

/** How far back a backfill may start (as a FOCUS export's range). */
const BACKFILL_MONTHS = 12;

/**
 * The periods a backfill from the UTC date `from` adds to a schedule made at `createdAt`, oldest
 * first: from the period holding `from` to the last one that ended before yesterday (or last
 * month) began, so each has long settled; the schedule's own periods (owedPeriods) go on from
 * there (one period may be in both: a run exists once per period).
 */
export function backfillPeriods(frequency: ExportFrequency, from: string, createdAt: Date): ExportPeriod[] {
  const at = parseDateParam('backfill_from', from)!;
  if (at.getTime() % DAY_MS !== 0 || from.length !== 10) throw new ValidationError('backfill_from', 'must be a UTC date (YYYY-MM-DD)');
  if (from < utcDate(addUtcMonths(createdAt, -BACKFILL_MONTHS))) {
    throw new ValidationError('backfill_from', `must be at most ${BACKFILL_MONTHS} months back`);
  }
  const until = duePeriod(frequency, createdAt, 0).start;
  const step = (d: Date) => (frequency === 'daily' ? new Date(d.getTime() + DAY_MS) : addUtcMonths(d, 1));
  let start = frequency === 'daily' ? at : new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const out: ExportPeriod[] = [];
  while (utcDate(step(start)) <= until) {
    out.push({ start: utcDate(start), end: utcDate(step(start)) });
    start = step(start);
  }
  return out;
}

/** `<prefix><organization>/<kind>/<frequency>/<YYYY-MM-DD | YYYY-MM>.parquet`: the same for every run of a period. */
export function objectKey(
  schedule: { organizationId: string; kind: ExportKind; frequency: ExportFrequency; destination: ExportDestination },
  period: ExportPeriod,
): string {
  const prefix = schedule.destination.type === 's3' ? schedule.destination.prefix : '';
  const label = schedule.frequency === 'daily' ? period.start : period.start.slice(0, 7);
  return `${prefix}${schedule.organizationId}/${schedule.kind}/${schedule.frequency}/${label}.parquet`;
}
