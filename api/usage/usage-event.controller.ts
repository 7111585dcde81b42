// GET /v1/usage/events/{eventId}: one usage event with its cost breakdown and the rate card used.
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { readContext } from '../../core/http/read-context.js';
import { usageEventDetail } from './usage-event.service.js';
import type { UsageEventDetail } from './usage-event.types.js';

@Route('usage/events')
@Tags('Usage')
@Security('api_key', ['usage:read'])
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks usage:read')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class UsageEventController extends Controller {
  /**
   * One processed event of the organization by its event_id: the usage event item's fields, its
   * status, token counts, cost breakdown and the rate card (id, effective date, service tier and
   * context tier) that priced it. Reads every date, so it is slower than a page of events.
   * @summary Retrieve a usage event
   * @param eventId The event_id returned by POST /usage-events.
   */
  @Get('{eventId}')
  @Response<ErrorEnvelope>(404, 'No processed event with this id in the organization')
  public async getUsageEvent(@Request() req: ExRequest, @Path() eventId: string): Promise<UsageEventDetail> {
    return usageEventDetail(readContext(req), eventId);
  }
}
