// The FOCUS export: checks the range (whole UTC days, at most 12 months) and the chosen
// dimensions, reads the cost groups from the lake and the organization's name from the control
// plane, and hands them to the FOCUS rule (focus.ts). Written as CSV or Parquet by export-files.ts;
// the scheduled runner (export-runner.ts) calls the same functions, so both give the same rows.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../core/control/db.js';
import { getOrganization } from '../../core/control/organizations.js';
import { ValidationError } from '../../core/errors.js';
import { textFault } from '../../core/text.js';
import { assertMaxMonths, DAY_MS, parseDateRange, type DateRange } from '../../core/time.js';
import { isTypedAttributionKey } from '../costs/dimension-derivations.js';
import type { LakeQuery } from '../lake/lake-query.js';
import { focusCsv, writeFocusParquet } from './export-files.js';
import { focusCostGroups } from './exports.queries.js';
import { focusRows, type FocusRow } from './focus.js';

const MAX_DIMENSIONS = 5;
const MAX_KEY_LENGTH = 256;

type FocusFormat = 'csv' | 'parquet';

/** The query's range as whole UTC days [start, end), at most 12 months. */
export function wholeDayRange(startRaw: string, endRaw: string): DateRange {
  const range = parseDateRange(startRaw, endRaw);
  for (const [field, at] of [
    ['start_date', range.start],
    ['end_date', range.end],
  ] as const) {
    if (at.getTime() % DAY_MS !== 0) throw new ValidationError(field, 'must be a UTC date: FOCUS rows are whole days');
  }
  assertMaxMonths(range, 12);
  return range;
}

/** `dimensions`: comma-separated metadata keys, at most 5, each once (agent_id, workflow_id and feature are always in Tags). */
export function parseDimensions(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  const keys = raw.split(',').map((k) => k.trim());
  if (keys.length > MAX_DIMENSIONS) throw new ValidationError('dimensions', `must name at most ${MAX_DIMENSIONS} keys`);
  const seen = new Set<string>();
  for (const k of keys) {
    if (k === '') throw new ValidationError('dimensions', 'must not name an empty key');
    if (k.length > MAX_KEY_LENGTH) throw new ValidationError('dimensions', `keys must be at most ${MAX_KEY_LENGTH} characters`);
    const fault = textFault(k);
    if (fault !== null) throw new ValidationError('dimensions', fault);
    if (isTypedAttributionKey(k)) throw new ValidationError('dimensions', `"${k}" is always in Tags (marginal/…); name metadata keys only`);
    if (seen.has(k)) throw new ValidationError('dimensions', `names "${k}" twice`);
    seen.add(k);
  }
  return keys;
}

export interface FocusScope {
  db: Queryable;
  lake: LakeQuery;
  organizationId: string;
}

/** The FOCUS rows of the organization's completed cost in whole days [range.start, range.end). */
export async function focusRowsIn(s: FocusScope, range: DateRange, dimensionKeys: readonly string[]): Promise<FocusRow[]> {
  const [organization, groups] = await Promise.all([
    getOrganization(s.db, s.organizationId),
    focusCostGroups(s.lake, { organizationId: s.organizationId, range }, dimensionKeys),
  ]);
  return focusRows(groups, {
    organizationId: s.organizationId,
    organizationName: organization?.name ?? s.organizationId,
    dimensionKeys,
  });
}

/** The export file's bytes. */
async function focusFile(rows: readonly FocusRow[], format: FocusFormat, extensionDirectory: string): Promise<Buffer> {
  if (format === 'csv') return Buffer.from(focusCsv(rows), 'utf8');
  const file = path.join(os.tmpdir(), `marginal-focus-${randomUUID()}.parquet`);
  try {
    await writeFocusParquet(rows, file, extensionDirectory);
    return fs.readFileSync(file);
  } finally {
    fs.rmSync(file, { force: true });
  }
}

export interface FocusExportQuery {
  start_date: string;
  end_date: string;
  format?: FocusFormat;
  dimensions?: string;
}

export interface FocusExport {
  body: Buffer;
  format: FocusFormat;
  rows: number;
  fileName: string;
}

/** GET /exports/focus and its admin twin. */
export async function focusExport(s: FocusScope, q: FocusExportQuery, extensionDirectory: string): Promise<FocusExport> {
  const range = wholeDayRange(q.start_date, q.end_date);
  const format = q.format ?? 'csv';
  if (format !== 'csv' && format !== 'parquet') throw new ValidationError('format', 'must be csv or parquet');
  const rows = await focusRowsIn(s, range, parseDimensions(q.dimensions));
  const body = await focusFile(rows, format, extensionDirectory);
  return { body, format, rows: rows.length, fileName: `focus-${q.start_date.slice(0, 10)}-${q.end_date.slice(0, 10)}.${format}` };
}
