// Admin: an organization's single sign-on settings (OpenID Connect), with the instance admin token
// (`npm run cli -- sso set`). The client secret goes in and never comes back out.
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Put, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext } from '../core/app-context.js';
import { requireOrganization } from '../core/control/organizations.js';
import { NotFoundError } from '../core/errors.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import { clientAddress } from '../core/http/audit-trail.js';
import { requestOrigin } from './request-actor.js';
import { checkSsoSettings, type SsoSettingsBody } from './sso-settings.js';
import { ssoConfigurationView, type SsoConfigurationView } from './sso-views.js';
import { configureSso, removeSso } from './sso.service.js';
import { ssoConfiguration } from './sso.store.js';

@Route('admin/organizations')
@Tags('Admin: people')
@Security('admin')
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token')
@Response<ErrorEnvelope>(404, 'Unknown organization, or no SSO configured')
export class SsoAdminController extends Controller {
  /**
   * Sets the organization's OpenID Connect provider: issuer, client id and secret (stored
   * encrypted), the email domains allowed to sign in, and the role new people get. Register the
   * answer's `redirect_uri` at the provider. Replaces any earlier settings.
   * @summary Set single sign-on
   */
  @Put('{organizationId}/sso')
  public async setOrganizationSso(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: SsoSettingsBody,
  ): Promise<SsoConfigurationView> {
    const { db, masterKey } = appContext(req);
    await requireOrganization(db, organizationId);
    const settings = checkSsoSettings(body);
    const actor = { kind: 'admin_token' as const, id: null, address: clientAddress(req) };
    return ssoConfigurationView(await configureSso(db, masterKey, actor, organizationId, settings), requestOrigin(req));
  }

  /**
   * The organization's single sign-on settings, without the client secret.
   * @summary Show single sign-on
   */
  @Get('{organizationId}/sso')
  public async getOrganizationSso(@Request() req: ExRequest, @Path() organizationId: string): Promise<SsoConfigurationView> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const row = await ssoConfiguration(db, organizationId);
    if (!row) throw new NotFoundError('SSO configuration', organizationId);
    return ssoConfigurationView(row, requestOrigin(req));
  }

  /**
   * Turns single sign-on off for the organization; its people keep their memberships and sessions.
   * @summary Remove single sign-on
   */
  @Delete('{organizationId}/sso')
  @SuccessResponse(204, 'Removed')
  public async removeOrganizationSso(@Request() req: ExRequest, @Path() organizationId: string): Promise<void> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    await removeSso(db, { kind: 'admin_token', id: null, address: clientAddress(req) }, organizationId);
    this.setStatus(204);
  }
}
