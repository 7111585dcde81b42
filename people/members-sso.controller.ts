// Single sign-on settings of the caller's organization, for its owners and admins (scope
// organization:admin, from their role), beside the admin token's route. The role new people get is
// judged like an invitation's: an admin may not have SSO make owners.
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Put, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import { appContext } from '../core/app-context.js';
import { AccessDeniedError, NotFoundError } from '../core/errors.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import { judgeRoleChange } from './member-rules.js';
import { personActor, requestOrigin } from './request-actor.js';
import { checkSsoSettings, type SsoSettingsBody } from './sso-settings.js';
import { ssoConfigurationView, type SsoConfigurationView } from './sso-views.js';
import { configureSso } from './sso.service.js';
import { ssoConfiguration } from './sso.store.js';

@Route('members/sso')
@Tags('People: members')
@Security('session', ['organization:admin'])
@Response<ErrorEnvelope>(400, 'Invalid body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Not signed in')
@Response<ErrorEnvelope>(403, 'Not an owner or admin of the organization, X-CSRF-Token missing or wrong, or a role the caller may not give')
export class MembersSsoController extends Controller {
  /**
   * The organization's single sign-on settings, without the client secret.
   * @summary Show single sign-on
   */
  @Get()
  @Response<ErrorEnvelope>(404, 'No SSO configured')
  public async getMembersSso(@Request() req: ExRequest): Promise<SsoConfigurationView> {
    const { organizationId } = personActor(req);
    const row = await ssoConfiguration(appContext(req).db, organizationId);
    if (!row) throw new NotFoundError('SSO configuration', organizationId);
    return ssoConfigurationView(row, requestOrigin(req));
  }

  /**
   * Sets the organization's OpenID Connect provider (see the admin route for the fields); register
   * the answer's `redirect_uri` at the provider. Admins may not make `owner` the role of new people.
   * @summary Set single sign-on
   */
  @Put()
  public async setMembersSso(@Request() req: ExRequest, @Body() body: SsoSettingsBody): Promise<SsoConfigurationView> {
    const { db, masterKey } = appContext(req);
    const actor = personActor(req);
    const settings = checkSsoSettings(body);
    const verdict = judgeRoleChange(actor.role, null, settings.defaultRole, 1);
    if (!verdict.allowed) throw new AccessDeniedError('default_role', `Not allowed: ${verdict.reason}`);
    return ssoConfigurationView(await configureSso(db, masterKey, actor, actor.organizationId, settings), requestOrigin(req));
  }
}
