// GET /v1/dimension-data/*: custom dimension definitions and analytics over their values.
import type { Request as ExRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { IsoDateParam, KeyParam, TextParam } from '../../core/http/params.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import type { Granularity } from '../costs/costs.types.js';
import { readContext } from '../../core/http/read-context.js';
import {
  dimensionCostBreakdown,
  dimensionCostTrend,
  dimensionDefinitions,
  dimensionNumericSummary,
  dimensionNumericTrend,
} from './dimension-data.service.js';
import type {
  DimensionCostBreakdown,
  DimensionCostTrend,
  DimensionDefinitions,
  NumericAggregation,
  NumericSummary,
  NumericTrend,
} from './dimension-data.types.js';

@Route('dimension-data')
@Tags('Dimension data')
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks the required scope')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class DimensionDataController extends Controller {
  /**
   * The organization's dimension definitions, by key.
   * @summary List dimension definitions
   */
  @Get('definitions')
  @Security('api_key', ['dimensions:read'])
  public async getDefinitions(@Request() req: ExRequest): Promise<DimensionDefinitions> {
    return dimensionDefinitions(readContext(req));
  }

  /**
   * Cost over time in adaptive buckets (cannot be overridden). Neither dimension parameter: one
   * series of all cost. dimension_key only: the top 5 values plus "Other". Both: one series of
   * that value (`Unassigned` selects events lacking the key).
   * @summary Chart cost over time by dimension
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   * @param dimension_key A key exactly as returned by definitions.
   * @param dimension_value Filters to one value; needs dimension_key.
   */
  @Get('cost-trend')
  @Security('api_key', ['costs:read'])
  @Response<ErrorEnvelope>(400, 'Bad dates or parameters')
  @Response<ErrorEnvelope>(404, 'Dimension not found')
  public async getCostTrend(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
    @Query() dimension_key?: KeyParam,
    @Query() dimension_value?: TextParam,
  ): Promise<DimensionCostTrend> {
    return dimensionCostTrend(readContext(req), { start_date, end_date, dimension_key, dimension_value });
  }

  /**
   * A number dimension's values aggregated per bucket; every bucket of the range is listed, with
   * value null and event_count 0 where no event carries the key.
   * @summary Chart a number dimension over time
   * @param dimension_key A dimension with value_type `number`.
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   * @param interval Overrides adaptive granularity.
   */
  @Get('numeric-trend')
  @Security('api_key', ['costs:read'])
  @Response<ErrorEnvelope>(400, 'Bad dates, aggregation or interval, or the dimension is not numeric')
  @Response<ErrorEnvelope>(404, 'Dimension not found')
  public async getNumericTrend(
    @Request() req: ExRequest,
    @Query() dimension_key: KeyParam,
    @Query() aggregation: NumericAggregation,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
    @Query() interval?: Granularity,
  ): Promise<NumericTrend> {
    return dimensionNumericTrend(readContext(req), { dimension_key, aggregation, start_date, end_date, interval });
  }

  /**
   * Sum, average, minimum and maximum of a number dimension over [start_date, end_date).
   * @summary Summarize a number dimension
   * @param dimension_key A dimension with value_type `number`.
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   */
  @Get('numeric-summary')
  @Security('api_key', ['costs:read'])
  @Response<ErrorEnvelope>(400, 'Bad dates, or the dimension is not numeric')
  @Response<ErrorEnvelope>(404, 'Dimension not found')
  public async getNumericSummary(
    @Request() req: ExRequest,
    @Query() dimension_key: KeyParam,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<NumericSummary> {
    return dimensionNumericSummary(readContext(req), { dimension_key, start_date, end_date });
  }

  /**
   * Cost per value of a dimension over [start_date, end_date); events lacking the key are under
   * `Unassigned`; percent_of_total is the share of the organization's total cost.
   * @summary Break down cost by dimension value
   * @param dimension_key A key exactly as returned by definitions.
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   */
  @Get('cost-breakdown')
  @Security('api_key', ['costs:read'])
  @Response<ErrorEnvelope>(400, 'Bad or missing parameters')
  @Response<ErrorEnvelope>(404, 'Dimension not found')
  public async getCostBreakdown(
    @Request() req: ExRequest,
    @Query() dimension_key: KeyParam,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<DimensionCostBreakdown> {
    return dimensionCostBreakdown(readContext(req), { dimension_key, start_date, end_date });
  }
}
