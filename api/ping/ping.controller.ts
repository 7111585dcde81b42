// GET /v1/ping: the spec's ping shape; any valid key, no scope.
import type { Request as ExRequest } from 'express';
import { Controller, Get, Request, Route, Security, Tags } from '@tsoa/runtime';
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
  /** Checks that the API key is valid and names its organization. */
  @Get()
  @Security('api_key', [])
  public async ping(@Request() req: ExRequest): Promise<PingResponse> {
    return { ok: true, organization_id: authOf(req).organizationId };
  }
}
