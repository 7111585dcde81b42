// The CLI's export commands (docs/exports.md): the FOCUS file of a range written to --out, and
// the scheduled exports of an organization with their runs.
import type { CommandSpec, FlagSpec } from './commands.js';

const org: FlagSpec = { name: 'org', type: 'string', required: true, pathParam: 'org', help: 'organization id' };

export const EXPORT_COMMANDS: CommandSpec[] = [
  {
    resource: 'exports',
    action: 'focus',
    summary: "Write the organization's cost of whole UTC days as a FOCUS 1.2 file (CSV or Parquet) to --out",
    method: 'GET',
    path: '/organizations/{org}/exports/focus',
    download: true,
    flags: [
      org,
      { name: 'start', type: 'string', required: true, field: 'start_date', help: 'first UTC date, YYYY-MM-DD (inclusive)' },
      { name: 'end', type: 'string', required: true, field: 'end_date', help: 'UTC date after the last, YYYY-MM-DD (exclusive)' },
      { name: 'format', type: 'string', help: 'csv (default) or parquet' },
      { name: 'dimensions', type: 'string', help: 'comma-separated metadata keys that split the rows (at most 5)' },
      { name: 'out', type: 'string', required: true, local: true, help: 'the file to write' },
    ],
  },
  {
    resource: 'exports',
    action: 'schedule',
    summary: 'Export each UTC day or month once it has ended, as Parquet, to an S3 bucket or a folder under DATA_DIR',
    method: 'POST',
    path: '/organizations/{org}/export-schedules',
    flags: [
      org,
      { name: 'kind', type: 'string', required: true, help: 'focus, events or rollups' },
      { name: 'frequency', type: 'string', required: true, help: 'daily or monthly' },
      { name: 'destination', type: 'string', required: true, help: 's3://bucket/prefix, or a folder relative to DATA_DIR' },
      {
        name: 's3',
        type: 'json',
        help: 'with s3://: {"access_key_id":…,"secret_access_key":…} and optionally endpoint (host:port), region, url_style, use_ssl',
      },
      { name: 'dimensions', type: 'string', help: 'with --kind focus: comma-separated metadata keys that split the rows (at most 5)' },
      { name: 'backfill-from', type: 'string', help: 'UTC date (YYYY-MM-DD, at most 12 months back): also export the periods from it on' },
    ],
  },
  {
    resource: 'exports',
    action: 'schedules',
    summary: "List the organization's export schedules (no secrets)",
    method: 'GET',
    path: '/organizations/{org}/export-schedules',
    flags: [org],
  },
  {
    resource: 'exports',
    action: 'unschedule',
    summary: 'Delete an export schedule and its runs (objects written stay)',
    method: 'DELETE',
    path: '/organizations/{org}/export-schedules/{schedule}',
    flags: [org, { name: 'schedule', type: 'string', required: true, pathParam: 'schedule', help: 'schedule id' }],
  },
  {
    resource: 'exports',
    action: 'runs',
    summary: 'List the runs of the organization’s export schedules with status, attempts, object key, rows and bytes',
    method: 'GET',
    path: '/organizations/{org}/export-runs',
    flags: [org, { name: 'schedule-id', type: 'string', help: 'only this schedule’s runs' }],
  },
];
