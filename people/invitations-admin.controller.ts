// Admin: invite a person to an organization with the instance admin token (how the first owner
// arrives: `npm run cli -- users invite`), and change a member's role.
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Patch, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext } from '../core/app-context.js';
import { requireOrganization } from '../core/control/organizations.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import type { UuidParam } from '../core/http/params.js';
import { requireUuid } from '../core/http/input.js';
import { normalizeEmail } from './email-address.js';
import { clientAddress } from '../core/http/audit-trail.js';
import { requestOrigin } from './request-actor.js';
import { changeRole, INVITATION_DEFAULT_HOURS, invite } from './people.service.js';
import { membersOfOrganization } from './people.store.js';
import {
  invitationView,
  memberView,
  type ChangeRoleBody,
  type CreateInvitationBody,
  type InvitationView,
  type MemberList,
  type MemberView,
} from './people-views.js';

@Route('admin/organizations')
@Tags('Admin: people')
@Security('admin')
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token')
@Response<ErrorEnvelope>(404, 'Unknown organization or member')
export class PeopleAdminController extends Controller {
  /**
   * Invites a person with a role. The answer holds the invitation's token and URL, shown once;
   * `POST /v1/auth/invitations/accept` with the token and a password creates the person.
   * @summary Invite a person
   */
  @Post('{organizationId}/invitations')
  @SuccessResponse(201, 'Created')
  public async createInvitation(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: CreateInvitationBody,
  ): Promise<InvitationView> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const issued = await invite(
      db,
      { kind: 'admin_token', id: null, address: clientAddress(req) },
      {
        organizationId,
        email: normalizeEmail('email', body.email),
        role: body.role,
        expiresInHours: body.expires_in_hours ?? INVITATION_DEFAULT_HOURS,
      },
    );
    this.setStatus(201);
    return invitationView(issued, requestOrigin(req));
  }

  /**
   * The organization's people and their roles.
   * @summary List members
   */
  @Get('{organizationId}/members')
  public async listOrganizationMembers(@Request() req: ExRequest, @Path() organizationId: string): Promise<MemberList> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const members = await membersOfOrganization(db, organizationId);
    return { members: members.map(memberView), total: members.length };
  }

  /**
   * Gives a member another role (the organization keeps at least one owner).
   * @summary Change a member's role
   */
  @Patch('{organizationId}/members/{personId}')
  public async changeOrganizationMemberRole(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Path() personId: UuidParam,
    @Body() body: ChangeRoleBody,
  ): Promise<MemberView> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const actor = { kind: 'admin_token' as const, id: null, address: clientAddress(req), role: 'owner' as const };
    return memberView(await changeRole(db, actor, organizationId, requireUuid('personId', personId), body.role));
  }
}
