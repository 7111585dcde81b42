// Admin: an organization's API keys. The key and its signing secret are returned once, at
// creation; listings show only a prefix. Revoking clears this process's key cache at once (other
// replicas notice within the authenticator's cache TTL).
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext } from '../../core/app-context.js';
import type { Scope } from '../../core/auth/scopes.js';
import { issueApiKey, listApiKeys, revokeApiKey } from '../../core/control/api-keys.js';
import { requireOrganization } from '../../core/control/organizations.js';
import { auditChange } from '../../core/http/audit-trail.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { requireUuid } from '../../core/http/input.js';
import { apiKeyView, issuedApiKeyView, type ApiKeyList, type ApiKeyView, type IssuedApiKeyView } from './admin-views.js';

export interface CreateApiKeyBody {
  /**
   * What the key may do: `usage:write` (ingestion), `usage:read`, `costs:read`, `revenue:read`,
   * `dimensions:read`.
   * @minItems 1 must name at least one scope
   */
  scopes: Scope[];
  /** UUID of the account user who owns the key's usage; a new UUID when absent. */
  owner_user_id?: string;
}

@Route('admin/organizations')
@Tags('Admin: API keys')
@Security('admin', ['organization:admin'])
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token (or session)')
@Response<ErrorEnvelope>(403, 'A session of a person who is not an owner or admin of this organization, or without X-CSRF-Token on a write')
@Response<ErrorEnvelope>(404, 'Unknown organization or key')
export class ApiKeysController extends Controller {
  /**
   * Issues an API key with its signing secret. Both are shown in this response only.
   * @summary Create an API key
   */
  @Post('{organizationId}/api-keys')
  @SuccessResponse(201, 'Created')
  @Response<ErrorEnvelope>(400, 'Invalid body; error.details.field names the field')
  public async createApiKey(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: CreateApiKeyBody,
  ): Promise<IssuedApiKeyView> {
    const ownerUserId = body.owner_user_id === undefined ? undefined : requireUuid('owner_user_id', body.owner_user_id);
    const ctx = appContext(req);
    await requireOrganization(ctx.db, organizationId);
    const key = await issueApiKey(ctx.db, ctx.masterKey, organizationId, { scopes: body.scopes, ownerUserId });
    await auditChange(req, { organizationId, action: 'api_key.created', after: apiKeyView(key) });
    this.setStatus(201);
    return issuedApiKeyView(key);
  }

  /**
   * Lists the organization's keys, revoked ones included, without secrets.
   * @summary List API keys
   */
  @Get('{organizationId}/api-keys')
  public async listApiKeys(@Request() req: ExRequest, @Path() organizationId: string): Promise<ApiKeyList> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const keys = await listApiKeys(db, organizationId);
    return { api_keys: keys.map(apiKeyView), total: keys.length };
  }

  /**
   * Revokes a key: it answers 401 from then on. Revoking twice keeps the first revocation time.
   * @summary Revoke an API key
   */
  @Delete('{organizationId}/api-keys/{keyId}')
  public async revokeApiKey(@Request() req: ExRequest, @Path() organizationId: string, @Path() keyId: string): Promise<ApiKeyView> {
    const ctx = appContext(req);
    const key = await revokeApiKey(ctx.db, organizationId, keyId);
    ctx.auth.invalidate();
    await auditChange(req, { organizationId, action: 'api_key.revoked', after: apiKeyView(key) });
    return apiKeyView(key);
  }
}
