// GET /v1/exports/focus (the organization's cost as a FOCUS 1.2 file) and GET /v1/exports/runs
// (its scheduled exports' runs). Schedules are made through the admin API (export-schedules.controller.ts).
import { Readable } from 'node:stream';
import type { Request as ExRequest } from 'express';
import { Controller, Get, Produces, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import { appContext } from '../../core/app-context.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import type { IsoDateParam, TextParam, UuidParam } from '../../core/http/params.js';
import { readContext } from '../../core/http/read-context.js';
import { focusExport, type FocusExport } from './exports.service.js';
import { FOCUS_VERSION } from './focus.js';
import { listExportRuns } from './export-schedules.store.js';
import type { ExportRunList } from './exports.types.js';

const CONTENT_TYPES = { csv: 'text/csv; charset=utf-8', parquet: 'application/vnd.apache.parquet' } as const;

/** The export as a download: its content type, name, row count and the body. */
export function sendFocusExport(c: Controller, e: FocusExport): Readable {
  c.setHeader('Content-Type', CONTENT_TYPES[e.format]);
  c.setHeader('Content-Disposition', `attachment; filename="${e.fileName}"`);
  c.setHeader('X-Total-Rows', String(e.rows));
  c.setHeader('X-Focus-Version', FOCUS_VERSION);
  return Readable.from([e.body]);
}

@Route('exports')
@Tags('Exports')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(400, 'Bad or missing parameters (error.details.field names it)')
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class ExportsController extends Controller {
  /**
   * The organization's completed cost in the FinOps Foundation's FOCUS 1.2 format: one row per
   * UTC day × provider × model × token class (the SKU) × end user × agent × workflow × feature
   * (× each chosen dimension), with BilledCost, EffectiveCost, ListCost and ContractedCost as exact
   * decimals in USD; end user, agent, workflow, feature and dimensions in Tags (JSON). The costs
   * sum exactly to the cost endpoints' total for the range. CSV (decimal text) or Parquet
   * (DECIMAL(38,12), UTC timestamps); the row count is in X-Total-Rows.
   * @summary Export cost as FOCUS
   * @param start_date UTC date (YYYY-MM-DD), inclusive. Must be before end_date.
   * @param end_date UTC date (YYYY-MM-DD), exclusive; at most 12 months after start_date.
   * @param format `csv` (default) or `parquet`.
   * @param dimensions Comma-separated metadata keys (at most 5) whose values split the rows and appear in Tags.
   */
  @Get('focus')
  @Produces('text/csv')
  @Produces('application/vnd.apache.parquet')
  @Response<ErrorEnvelope>(422, 'DATE_RANGE_TOO_LARGE: the range is longer than 12 months')
  public async getFocusExport(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
    @Query() format?: 'csv' | 'parquet',
    @Query() dimensions?: TextParam,
  ): Promise<Readable> {
    const rc = readContext(req);
    const e = await focusExport(rc, { start_date, end_date, format, dimensions }, appContext(req).config.lake.extensionDirectory);
    return sendFocusExport(this, e);
  }

  /**
   * The runs of the organization's scheduled exports, newest period first: status (`pending`,
   * `running`, `succeeded`, `failed`), attempts, the object key or file written, rows and bytes.
   * @summary List scheduled export runs
   * @param schedule_id Only this schedule's runs.
   */
  @Get('runs')
  public async getExportRuns(@Request() req: ExRequest, @Query() schedule_id?: UuidParam): Promise<ExportRunList> {
    const rc = readContext(req);
    return { runs: await listExportRuns(rc.db, rc.organizationId, schedule_id?.toLowerCase() ?? null) };
  }
}
