// GET /v1/attribution-data/*: cost by agent and by any dimension (with CSV export), and the
// distinct agents, workflows and dimension values of a range. Session trees and the sessions list
// live in api/sessions under the same path.
import { Readable } from 'node:stream';
import type { Request as ExRequest } from 'express';
import { Controller, Get, Produces, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { IsoDateParam, KeyParam, TextParam } from '../../core/http/params.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { readContext } from '../../core/http/read-context.js';
import { breakdownCsv } from './attribution.js';
import { costByAgent, costByDimension, dimensionValues, distinctAgents, distinctWorkflows } from './attribution.service.js';
import type { AttributionBreakdown, AttributionDimensionBreakdown, DimensionValues, DistinctValues } from './attribution.types.js';

@Route('attribution-data')
@Tags('Attribution')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(400, 'Bad or missing parameters (error.details.field names it); start_date not before end_date')
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class AttributionController extends Controller {
  /**
   * Cost grouped by `agent_id` over [start_date, end_date); events without one are under
   * `Unassigned`. The costliest 1000 groups are returned; `total_cost` covers every group.
   * @summary Break down cost by agent
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   */
  @Get('by-agent')
  public async getCostByAgent(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<AttributionBreakdown> {
    return costByAgent(readContext(req), start_date, end_date);
  }

  /**
   * Distinct `agent_id` values of the range's events, sorted; at most 1000 (`truncated` when more exist).
   * @summary List agent ids
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   */
  @Get('agents')
  public async getAgents(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<DistinctValues> {
    return distinctAgents(readContext(req), start_date, end_date);
  }

  /**
   * Distinct `workflow_id` values of the range's events, sorted; at most 1000 (`truncated` when more exist).
   * @summary List workflow ids
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   */
  @Get('workflows')
  public async getWorkflows(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<DistinctValues> {
    return distinctWorkflows(readContext(req), start_date, end_date);
  }

  /**
   * Cost grouped by any key: `agent_id`, `workflow_id` and `feature` read the event's field, any
   * other key its metadata. Optionally only events whose `filter_key` equals `filter_value`
   * (`Unassigned` matches events without it). The costliest 1000 groups; CSV with `format=csv`
   * or `Accept: text/csv`.
   * @summary Break down cost by any key
   * @param dimension The key to group by.
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   * @param filter_key A second key to filter on (with filter_value).
   * @param filter_value The value filter_key must have.
   * @param format `json` (default) or `csv`.
   */
  @Get('by-dimension')
  @Produces('application/json')
  @Produces('text/csv')
  public async getCostByDimension(
    @Request() req: ExRequest,
    @Query() dimension: KeyParam,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
    @Query() filter_key?: KeyParam,
    @Query() filter_value?: TextParam,
    @Query() format?: 'json' | 'csv',
  ): Promise<AttributionDimensionBreakdown | Readable> {
    const result = await costByDimension(readContext(req), { dimension, start_date, end_date, filter_key, filter_value });
    const csv = format === 'csv' || (format === undefined && req.accepts(['application/json', 'text/csv']) === 'text/csv');
    if (!csv) return result;
    this.setHeader('Content-Type', 'text/csv; charset=utf-8');
    this.setHeader('Content-Disposition', `attachment; filename="cost-by-${encodeURIComponent(dimension)}.csv"`);
    this.setHeader('X-Total-Cost', result.total_cost);
    this.setHeader('X-Total-Groups', String(result.total_groups));
    this.setHeader('X-Truncated', String(result.truncated));
    return Readable.from([breakdownCsv(result.items)]);
  }

  /**
   * Distinct values of a key among the range's events (fields as in by-dimension), sorted; at most
   * 1000 (`truncated` when more exist). Events without the key add nothing.
   * @summary List a key's values
   * @param dimension The key.
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   */
  @Get('dimension-values')
  public async getDimensionValues(
    @Request() req: ExRequest,
    @Query() dimension: KeyParam,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<DimensionValues> {
    return dimensionValues(readContext(req), { dimension, start_date, end_date });
  }
}
