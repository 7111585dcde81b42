// GET /v1/attribution-data/sessions: the sessions list and one session's call tree. A session is
// every event carrying its session_id, across all time.
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { IsoDateParam } from '../../core/http/params.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { readContext } from '../../core/http/read-context.js';
import { sessionList, sessionTree } from './sessions.service.js';
import type { SessionList, SessionTree } from './sessions.types.js';

@Route('attribution-data/sessions')
@Tags('Sessions')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(400, 'Bad or missing parameters (error.details.field names it)')
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class SessionsController extends Controller {
  /**
   * Sessions active in [start_date, end_date) (their first-to-last event interval overlaps it),
   * most recently active first, each with its whole-session cost and counts. OTLP spans without
   * model usage count as spans with zero cost, active from their start to their end, so a session
   * made only of them is listed too.
   * @summary List sessions
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   * @param limit Page size, 1 to 1000. Default 100.
   * @param offset Sessions to skip, 0 to 2147483647. Default 0.
   * @isInt limit must be an integer
   * @minimum limit 1
   * @maximum limit 1000
   * @isInt offset must be an integer
   * @minimum offset 0
   * @maximum offset 2147483647
   */
  @Get()
  public async listSessions(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
    @Query() limit?: number,
    @Query() offset?: number,
  ): Promise<SessionList> {
    return sessionList(readContext(req), { start_date, end_date, limit, offset });
  }

  /**
   * The session's call tree over all time: spans nested by parent, roots and children by
   * subtree cost, orphans promoted to roots, cycles broken, 32 levels, at most node_limit (500)
   * spans (the earliest by start). Roots' subtree costs + untraced + withheld = the session's total.
   * @summary Retrieve a session's call tree
   * @param sessionId The `session_id` sent on events.
   */
  @Get('{sessionId}/tree')
  @Response<ErrorEnvelope>(404, 'No event of the organization carries this session id')
  public async getSessionTree(@Request() req: ExRequest, @Path() sessionId: string): Promise<SessionTree> {
    return sessionTree(readContext(req), sessionId);
  }
}
