// Admin: reconciliation. Upload a provider's cost report (OpenAI's organization costs page,
// Anthropic's cost report, or a CSV) or usage report (OpenAI's completions usage, Anthropic's
// messages usage report); each (provider, day) it covers replaces what an earlier import of the
// same kind held for it. The tolerance a day may drift is an organization setting.
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Post, Put, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import { appContext, service } from '../core/app-context.js';
import { requireOrganization } from '../core/control/organizations.js';
import { ValidationError } from '../core/errors.js';
import { auditChange } from '../core/http/audit-trail.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import { Big, formatMoney, isUnsignedDecimalString } from '../core/money.js';
import { REPORT_FORMATS, type ReportFormat } from './provider-reports.js';
import { USAGE_REPORT_FORMATS, type UsageReportFormat } from './provider-usage-reports.js';
import {
  importProviderReport,
  importUsageReport,
  setOrganizationTolerance,
  tolerancePercentOf,
  type ImportSummary,
  type UsageImportSummary,
} from './reconciliation.service.js';

export interface ImportProviderCostReportBody {
  /**
   * `openai_costs`: the JSON page of OpenAI's `GET /v1/organization/costs` (bucket_width 1d,
   * best grouped by line_item and project_id); `anthropic_cost_report`: the JSON of Anthropic's
   * `GET /v1/organizations/cost_report` (daily buckets, amounts in cents, best grouped by
   * description and workspace_id); `csv`: text with a header naming date, provider, model, cost
   * and optionally project (or key).
   */
  format: ReportFormat;
  /** The report: the provider's JSON as returned, or the CSV text. */
  report: unknown;
}

export interface ImportProviderCostReportResult extends ImportSummary {
  organization_id: string;
}

export interface ImportProviderUsageReportBody {
  /**
   * `openai_usage_completions`: the JSON page of OpenAI's `GET /v1/organization/usage/completions`
   * (bucket_width 1d, best grouped by model and project_id); `anthropic_usage_report`: the JSON of
   * Anthropic's `GET /v1/organizations/usage_report/messages` (bucket_width 1d, best grouped by
   * model and workspace_id).
   */
  format: UsageReportFormat;
  /** The provider's JSON as returned. */
  report: unknown;
}

export interface ImportProviderUsageReportResult extends UsageImportSummary {
  organization_id: string;
}

export interface ReconciliationSettings {
  organization_id: string;
  /** Percent of the provider's cost a day may drift before it is out of tolerance. */
  tolerance_percent: string;
}

export interface ReconciliationSettingsBody {
  /** A decimal string from 0 to 1000 (percent). */
  tolerance_percent: string;
}

@Route('admin/organizations')
@Tags('Admin: reconciliation')
@Security('admin', ['organization:admin'])
@Response<ErrorEnvelope>(400, 'Invalid body; error.details.field names the field')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token (or session)')
@Response<ErrorEnvelope>(403, 'A session of a person who is not an owner or admin of this organization, or without X-CSRF-Token on a write')
@Response<ErrorEnvelope>(404, 'Unknown organization')
export class ReconciliationAdminController extends Controller {
  /**
   * Imports a provider's cost report. Each (provider, UTC day) the report covers replaces the
   * figures an earlier import held for it, so importing the same report twice counts it once.
   * @summary Import a provider cost report
   */
  @Post('{organizationId}/provider-cost-reports')
  public async importProviderCostReport(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: ImportProviderCostReportBody,
  ): Promise<ImportProviderCostReportResult> {
    if (!REPORT_FORMATS.includes(body.format)) throw new ValidationError('format', `must be one of ${REPORT_FORMATS.join(', ')}`);
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const summary = await importProviderReport(db, organizationId, body.format, body.report);
    await auditChange(req, {
      organizationId,
      action: 'provider_cost_report.imported',
      details: { format: summary.format, lines: summary.lines, days: summary.days.length, total_cost: summary.total_cost },
    });
    // Days now beyond the tolerance announce themselves (reconciliation.variance, once per figures).
    await service(req, 'providerCostsImported')(db, organizationId, summary.days);
    return { organization_id: organizationId, ...summary };
  }

  /**
   * Imports a provider's usage report (token counts per day and model, in three classes: input
   * not read from cache with cache writes, cache reads, output). Each (provider, UTC day) the
   * report covers replaces the counts an earlier usage import held for it, so importing the same
   * report twice counts it once. `GET /v1/reconciliation` then sets them against our tokens.
   * @summary Import a provider usage report
   */
  @Post('{organizationId}/provider-usage-reports')
  public async importProviderUsageReport(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: ImportProviderUsageReportBody,
  ): Promise<ImportProviderUsageReportResult> {
    if (!USAGE_REPORT_FORMATS.includes(body.format))
      throw new ValidationError('format', `must be one of ${USAGE_REPORT_FORMATS.join(', ')}`);
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const summary = await importUsageReport(db, organizationId, body.format, body.report);
    await auditChange(req, {
      organizationId,
      action: 'provider_usage_report.imported',
      details: { format: summary.format, lines: summary.lines, days: summary.days.length },
    });
    return { organization_id: organizationId, ...summary };
  }

  /**
   * The organization's reconciliation tolerance (1% unless set).
   * @summary Retrieve reconciliation settings
   */
  @Get('{organizationId}/reconciliation-settings')
  public async getReconciliationSettings(@Request() req: ExRequest, @Path() organizationId: string): Promise<ReconciliationSettings> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    return { organization_id: organizationId, tolerance_percent: formatMoney(await tolerancePercentOf(db, organizationId)) };
  }

  /**
   * Sets the percent of the provider's cost a day may drift before `GET /v1/reconciliation` flags it.
   * @summary Update reconciliation settings
   */
  @Put('{organizationId}/reconciliation-settings')
  public async putReconciliationSettings(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: ReconciliationSettingsBody,
  ): Promise<ReconciliationSettings> {
    const tolerance = body.tolerance_percent;
    if (typeof tolerance !== 'string' || !isUnsignedDecimalString(tolerance) || new Big(tolerance).gt(1000)) {
      throw new ValidationError('tolerance_percent', 'must be a decimal string from 0 to 1000');
    }
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const before = { tolerance_percent: formatMoney(await tolerancePercentOf(db, organizationId)) };
    await setOrganizationTolerance(db, organizationId, tolerance);
    const after = { organization_id: organizationId, tolerance_percent: formatMoney(tolerance) };
    await auditChange(req, { organizationId, action: 'reconciliation_settings.updated', before, after });
    return after;
  }
}
