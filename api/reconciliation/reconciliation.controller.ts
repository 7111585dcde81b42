// GET /v1/reconciliation: the providers' own cost figures (imported through the admin API) set
// against our completed costs per UTC day × provider × model, with variances and tolerance flags.
import type { Request as ExRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { IsoDateParam } from '../../core/http/params.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { readContext } from '../../core/http/read-context.js';
import { reconciliationOf, type ReconciliationReport } from './reconciliation.service.js';

@Route('reconciliation')
@Tags('Reconciliation')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(400, 'Bad or missing parameters (error.details.field names it); start_date not before end_date')
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(422, 'DATE_RANGE_TOO_LARGE: the range is longer than 12 months')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class ReconciliationController extends Controller {
  /**
   * The provider's cost (from imported reports) against ours (completed events) per UTC day ×
   * provider × model: variance = ours − provider's, in USD and percent of the provider's cost;
   * rows only one side has (`side`); days whose variance is beyond the tolerance
   * (`out_of_tolerance`). Only (day, provider) pairs a report covers are compared; our cost of
   * the others is listed in `unreported`.
   * @summary Reconcile costs with the providers' reports
   * @param start_date UTC date (YYYY-MM-DD), inclusive. Must be before end_date.
   * @param end_date UTC date (YYYY-MM-DD), exclusive; at most 12 months after start_date.
   * @param tolerance_percent Percent of the provider's cost a row or day may drift, 0 to 1000; default the organization's setting, else 1.
   * @minimum tolerance_percent 0
   * @maximum tolerance_percent 1000
   */
  @Get()
  public async getReconciliation(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
    @Query() tolerance_percent?: number,
  ): Promise<ReconciliationReport> {
    return reconciliationOf(readContext(req), { start_date, end_date, tolerance_percent });
  }
}
