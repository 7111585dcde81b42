// GET /v1/ping: the spec's ping shape; any valid key, no scope.
import type { Request as ExRequest } from 'express';
import { Controller, Get, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { authOf } from '../../core/http/authentication.js';

export interface PingResponse {
  /** Always true on success. */
  ok: boolean;
  /** The organization the key belongs to. */
  organization_id: string;
}

@Route('ping')
@Tags('Ping')
export class PingController extends Controller {
  /**
   * Checks that the API key is valid and names its organization.
   * @summary Check an API key
   */
  @Get()
  @Security('api_key', [])
  @Response<ErrorEnvelope>(401, 'Missing or invalid API key')
  @Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
  public async ping(@Request() req: ExRequest): Promise<PingResponse> {
    return { ok: true, organization_id: authOf(req).organizationId };
  }
}
