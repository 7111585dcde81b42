// Admin: an organization's scheduled exports (create, list, delete), their runs, and the FOCUS
// export for the CLI. An S3 secret key is sealed under the master key as Stripe keys are and never
// shown again; the runner (export-runner.ts) does the work.
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Request as ExRequest } from 'express';
import {
  Body,
  Controller,
  Delete,
  Get,
  Path,
  Post,
  Produces,
  Query,
  Request,
  Response,
  Route,
  Security,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import { appContext, service } from '../../core/app-context.js';
import { sealSecret } from '../../core/auth/secrets.js';
import { requireOrganization } from '../../core/control/organizations.js';
import { NotFoundError } from '../../core/errors.js';
import { auditChange } from '../../core/http/audit-trail.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { requireUuid } from '../../core/http/input.js';
import type { IsoDateParam, TextParam, UuidParam } from '../../core/http/params.js';
import { exportSecretAad } from './export-runner.js';
import { backfillPeriods, objectKey, parseScheduleInput } from './export-schedules.js';
import { deleteSchedule, ensureRun, insertSchedule, listExportRuns, listSchedules, scheduleView } from './export-schedules.store.js';
import { sendFocusExport } from './exports.controller.js';
import { focusExport } from './exports.service.js';
import type { CreateExportScheduleBody, ExportRunList, ExportScheduleList, ExportScheduleView } from './exports.types.js';

/** The path's organization id, checked (400) and known (404). */
async function existingOrganization(req: ExRequest, organizationId: string): Promise<string> {
  const org = requireUuid('organizationId', organizationId);
  await requireOrganization(appContext(req).db, org);
  return org;
}

@Route('admin/organizations')
@Tags('Admin: exports')
@Security('admin')
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token')
@Response<ErrorEnvelope>(404, 'Unknown organization or schedule')
export class ExportSchedulesController extends Controller {
  /**
   * Exports the organization's FOCUS file (or its events or daily cost rollups) for each UTC day
   * or month once it has ended (and settled an hour), as Parquet, to `s3://bucket/prefix` or a
   * folder under DATA_DIR, at `<prefix><organization>/<kind>/<frequency>/<period>.parquet`. Runs
   * are retried with backoff and announced by the export.completed / export.failed webhooks.
   * A FOCUS schedule may name `dimensions`; `backfill_from` exports the periods before the first too.
   * @summary Create an export schedule
   */
  @Post('{organizationId}/export-schedules')
  @SuccessResponse(201, 'Created')
  public async createExportSchedule(
    @Request() req: ExRequest,
    @Path() organizationId: UuidParam,
    @Body() body: CreateExportScheduleBody,
  ): Promise<ExportScheduleView> {
    const { db, masterKey, services } = appContext(req);
    const org = await existingOrganization(req, organizationId);
    const input = parseScheduleInput(body);
    const createdAt = services.apiClock?.() ?? new Date();
    const backfill = body.backfill_from === undefined ? [] : backfillPeriods(input.frequency, body.backfill_from, createdAt);
    const id = randomUUID();
    // Sealed with the schedule's own id in its associated data, so it cannot be moved to another.
    const secretKeySealed = input.secretAccessKey === null ? null : sealSecret(masterKey, input.secretAccessKey, exportSecretAad(org, id));
    // The schedule and its backfill's runs together: pending at once, the runner's tick takes them oldest first.
    const schedule = await db.transaction(async (tx) => {
      const made = await insertSchedule(tx, { id, organizationId: org, input, secretKeySealed, createdAt });
      for (const period of backfill) await ensureRun(tx, made, period, objectKey({ organizationId: org, ...made }, period), createdAt);
      return made;
    });
    const view = scheduleView(schedule);
    await auditChange(req, { organizationId: org, action: 'export_schedule.created', after: view });
    this.setStatus(201);
    return view;
  }

  /**
   * The organization's export schedules (never their secret keys).
   * @summary List export schedules
   */
  @Get('{organizationId}/export-schedules')
  public async listExportSchedules(@Request() req: ExRequest, @Path() organizationId: UuidParam): Promise<ExportScheduleList> {
    const { db } = appContext(req);
    const org = await existingOrganization(req, organizationId);
    return { schedules: (await listSchedules(db, org)).map(scheduleView) };
  }

  /**
   * Deletes the schedule, its sealed key and its runs; objects already written stay.
   * @summary Delete an export schedule
   */
  @Delete('{organizationId}/export-schedules/{scheduleId}')
  @SuccessResponse(204, 'Deleted')
  public async deleteExportSchedule(
    @Request() req: ExRequest,
    @Path() organizationId: UuidParam,
    @Path() scheduleId: UuidParam,
  ): Promise<void> {
    const org = requireUuid('organizationId', organizationId);
    const deleted = await deleteSchedule(appContext(req).db, org, requireUuid('scheduleId', scheduleId));
    if (!deleted) throw new NotFoundError('export schedule');
    await auditChange(req, { organizationId: org, action: 'export_schedule.deleted', before: scheduleView(deleted) });
    this.setStatus(204);
  }

  /**
   * The runs of the organization's schedules, newest period first, with status, attempts, object key, rows and bytes.
   * @summary List export runs
   * @param schedule_id Only this schedule's runs.
   */
  @Get('{organizationId}/export-runs')
  public async listExportRuns(
    @Request() req: ExRequest,
    @Path() organizationId: UuidParam,
    @Query() schedule_id?: UuidParam,
  ): Promise<ExportRunList> {
    const { db } = appContext(req);
    const org = await existingOrganization(req, organizationId);
    return { runs: await listExportRuns(db, org, schedule_id?.toLowerCase() ?? null) };
  }

  /**
   * GET /v1/exports/focus for the admin (the CLI's `exports focus`): the same file.
   * @summary Export an organization's cost as FOCUS
   * @param start_date UTC date (YYYY-MM-DD), inclusive. Must be before end_date.
   * @param end_date UTC date (YYYY-MM-DD), exclusive; at most 12 months after start_date.
   * @param format `csv` (default) or `parquet`.
   * @param dimensions Comma-separated metadata keys (at most 5).
   */
  @Get('{organizationId}/exports/focus')
  @Produces('text/csv')
  @Produces('application/vnd.apache.parquet')
  @Response<ErrorEnvelope>(422, 'DATE_RANGE_TOO_LARGE: the range is longer than 12 months')
  public async getOrganizationFocusExport(
    @Request() req: ExRequest,
    @Path() organizationId: UuidParam,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
    @Query() format?: 'csv' | 'parquet',
    @Query() dimensions?: TextParam,
  ): Promise<Readable> {
    const { db, config } = appContext(req);
    const org = await existingOrganization(req, organizationId);
    const e = await focusExport(
      { db, lake: service(req, 'lakeQuery'), organizationId: org },
      { start_date, end_date, format, dimensions },
      config.lake.extensionDirectory,
    );
    return sendFocusExport(this, e);
  }
}
