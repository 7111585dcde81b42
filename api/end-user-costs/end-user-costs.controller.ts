// GET /v1/end-user-costs/{externalId}/*: one end user's costs. The path takes the external id
// (the user_id sent on events); responses give the internal UUID as end_user_id.
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { IsoDateParam, KeyParam } from '../../core/http/params.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { readContext } from '../../core/http/read-context.js';
import { endUserByDimension, endUserByModel, endUserByProvider, endUserSummary, endUserTrend } from './end-user-costs.service.js';
import type { EndUserCostBreakdown, EndUserCostSummary, EndUserCostTrend } from './end-user-costs.types.js';

@Route('end-user-costs')
@Tags('End-user costs')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(400, 'Bad or missing parameters (error.details.field names it); start_date not before end_date')
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(404, 'End user unknown: no event ever named this external id')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class EndUserCostsController extends Controller {
  /**
   * Totals of the end user's completed events over [start_date, end_date).
   * @summary Summarize an end user's cost
   * @param externalId The `user_id` sent on events.
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   */
  @Get('{externalId}/summary')
  public async getEndUserSummary(
    @Request() req: ExRequest,
    @Path() externalId: string,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<EndUserCostSummary> {
    return endUserSummary(readContext(req), externalId, start_date, end_date);
  }

  /**
   * The end user's cost per model; events without a model (metric events priced by provider)
   * are under `Unassigned`.
   * @summary Break down an end user's cost by model
   * @param externalId The `user_id` sent on events.
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   */
  @Get('{externalId}/by-model')
  public async getEndUserByModel(
    @Request() req: ExRequest,
    @Path() externalId: string,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<EndUserCostBreakdown> {
    return endUserByModel(readContext(req), externalId, start_date, end_date);
  }

  /**
   * The end user's cost per provider; events without one are under `Unassigned`.
   * @summary Break down an end user's cost by provider
   * @param externalId The `user_id` sent on events.
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   */
  @Get('{externalId}/by-provider')
  public async getEndUserByProvider(
    @Request() req: ExRequest,
    @Path() externalId: string,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<EndUserCostBreakdown> {
    return endUserByProvider(readContext(req), externalId, start_date, end_date);
  }

  /**
   * The end user's cost grouped by a metadata key. `feature`, `agent_id` and `workflow_id` read
   * the event's attribution field (top-level, else the metadata key); every other key is read
   * from metadata. Events missing the key are under `Unassigned`; a key no
   * event carries gives one `Unassigned` row with the full cost.
   * @summary Break down an end user's cost by metadata key
   * @param externalId The `user_id` sent on events.
   * @param dimension Metadata key to group by.
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   */
  @Get('{externalId}/by-dimension')
  public async getEndUserByDimension(
    @Request() req: ExRequest,
    @Path() externalId: string,
    @Query() dimension: KeyParam,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<EndUserCostBreakdown> {
    return endUserByDimension(readContext(req), externalId, dimension, start_date, end_date);
  }

  /**
   * The end user's cost over time in adaptive buckets (≤ 30 days daily, 31–90 weekly, more
   * monthly; UTC); buckets without events are omitted.
   * @summary Chart an end user's cost over time
   * @param externalId The `user_id` sent on events.
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   */
  @Get('{externalId}/trend')
  public async getEndUserTrend(
    @Request() req: ExRequest,
    @Path() externalId: string,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<EndUserCostTrend> {
    return endUserTrend(readContext(req), externalId, start_date, end_date);
  }
}
