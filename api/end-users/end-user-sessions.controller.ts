// GET /v1/end-user-costs/{externalId}/sessions: the sessions of one end user (the console's
// customer page lists them and links to each call tree).
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { IsoDateParam } from '../../core/http/params.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { readContext } from '../../core/http/read-context.js';
import type { SessionList } from '../sessions/sessions.types.js';
import { endUserSessions } from './end-user-sessions.js';

@Route('end-user-costs')
@Tags('End-user costs')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class EndUserSessionsController extends Controller {
  /**
   * Sessions in which the end user has an event in [start_date, end_date), most recently active
   * first (then session id), with whole-session totals over all time, as /attribution-data/sessions.
   * @summary List an end user's sessions
   * @param externalId The `user_id` sent on events.
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   * @param limit 1 to 1000, default 100.
   * @param offset 0 to 2147483647, default 0.
   * @isInt limit
   * @minimum limit 1
   * @maximum limit 1000
   * @isInt offset
   * @minimum offset 0
   * @maximum offset 2147483647
   */
  @Get('{externalId}/sessions')
  @Response<ErrorEnvelope>(400, 'Bad or missing dates, start_date not before end_date, limit or offset out of range')
  @Response<ErrorEnvelope>(404, 'Unknown end user')
  public async getEndUserSessions(
    @Request() req: ExRequest,
    @Path() externalId: string,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
    @Query() limit?: number,
    @Query() offset?: number,
  ): Promise<SessionList> {
    return endUserSessions(readContext(req), externalId, { start_date, end_date, limit, offset });
  }
}
