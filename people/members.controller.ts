// Members of the caller's organization, for its owners and admins (scope organization:admin, from
// their role): list, invite a colleague, list and revoke open invitations, change a role, remove a
// member (people/member-rules.ts guards escalation).
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext } from '../core/app-context.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import type { UuidParam } from '../core/http/params.js';
import { requireUuid } from '../core/http/input.js';
import { normalizeEmail } from './email-address.js';
import { changeRole, INVITATION_DEFAULT_HOURS, invite, removeMember, revokeInvitation } from './people.service.js';
import { membersOfOrganization, openInvitations } from './people.store.js';
import { personActor, requestOrigin } from './request-actor.js';
import {
  invitationView,
  memberView,
  openInvitationView,
  type ChangeRoleBody,
  type CreateInvitationBody,
  type InvitationView,
  type MemberList,
  type MemberView,
  type OpenInvitationList,
  type OpenInvitationView,
} from './people-views.js';

@Route('members')
@Tags('People: members')
@Security('session', ['organization:admin'])
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Not signed in')
@Response<ErrorEnvelope>(403, 'Not an owner or admin of the organization, X-CSRF-Token missing or wrong, or a role the caller may not give')
export class MembersController extends Controller {
  /**
   * The people of the organization (X-Organization-Id, or the caller's only one) and their roles.
   * @summary List members
   */
  @Get()
  public async listMembers(@Request() req: ExRequest): Promise<MemberList> {
    const members = await membersOfOrganization(appContext(req).db, personActor(req).organizationId);
    return { members: members.map(memberView), total: members.length };
  }

  /**
   * Invites a colleague with a role; the answer holds the invitation's token and URL (shown once).
   * Admins may not invite owners.
   * @summary Invite a member
   */
  @Post('invitations')
  @SuccessResponse(201, 'Created')
  public async inviteMember(@Request() req: ExRequest, @Body() body: CreateInvitationBody): Promise<InvitationView> {
    const actor = personActor(req);
    const issued = await invite(appContext(req).db, actor, {
      organizationId: actor.organizationId,
      email: normalizeEmail('email', body.email),
      role: body.role,
      expiresInHours: body.expires_in_hours ?? INVITATION_DEFAULT_HOURS,
    });
    this.setStatus(201);
    return invitationView(issued, requestOrigin(req));
  }

  /**
   * The organization's open invitations (neither accepted, revoked nor expired), newest first,
   * without their tokens.
   * @summary List open invitations
   */
  @Get('invitations')
  public async listInvitations(@Request() req: ExRequest): Promise<OpenInvitationList> {
    const invitations = await openInvitations(appContext(req).db, personActor(req).organizationId);
    return { invitations: invitations.map(openInvitationView), total: invitations.length };
  }

  /**
   * Revokes an open invitation: its link no longer works. Admins may not revoke an owner's invitation.
   * @summary Revoke an invitation
   */
  @Delete('invitations/{invitationId}')
  @Response<ErrorEnvelope>(404, 'No open invitation of the organization by that id')
  public async revokeInvitation(@Request() req: ExRequest, @Path() invitationId: UuidParam): Promise<OpenInvitationView> {
    const actor = personActor(req);
    const revoked = await revokeInvitation(appContext(req).db, actor, actor.organizationId, requireUuid('invitationId', invitationId));
    return openInvitationView(revoked);
  }

  /**
   * Removes a member from the organization (their account and other memberships stay). Only
   * owners remove owners; the last owner stays.
   * @summary Remove a member
   */
  @Delete('{personId}')
  @SuccessResponse(204, 'Removed')
  @Response<ErrorEnvelope>(404, 'Not a member of the organization')
  public async removeMember(@Request() req: ExRequest, @Path() personId: UuidParam): Promise<void> {
    const actor = personActor(req);
    await removeMember(appContext(req).db, actor, actor.organizationId, requireUuid('personId', personId));
    this.setStatus(204);
  }

  /**
   * Gives a member another role. Only owners make or change owners; the last owner stays one.
   * @summary Change a member's role
   */
  @Patch('{personId}')
  @Response<ErrorEnvelope>(404, 'Not a member of the organization')
  public async changeMemberRole(@Request() req: ExRequest, @Path() personId: UuidParam, @Body() body: ChangeRoleBody): Promise<MemberView> {
    const actor = personActor(req);
    const member = await changeRole(appContext(req).db, actor, actor.organizationId, requireUuid('personId', personId), body.role);
    return memberView(member);
  }
}
