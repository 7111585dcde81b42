// Admin: organizations (tenants). Creating one opens its credit balance at zero and an active
// subscription on `plan`, so it can ingest as soon as it has credits and a key.
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext } from '../../core/app-context.js';
import { createOrganization, listOrganizations, requireOrganization } from '../../core/control/organizations.js';
import { auditChange } from '../../core/http/audit-trail.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { requireText } from '../../core/http/input.js';
import { organizationView, type OrganizationList, type OrganizationView } from './admin-views.js';

export interface CreateOrganizationBody {
  /**
   * Display name, 1–200 characters (trimmed).
   * @minLength 1 must not be empty
   * @maxLength 200 must be at most 200 characters
   */
  name: string;
  /**
   * Plan of the organization's first (active) subscription; default "default".
   * @minLength 1 must not be empty
   * @maxLength 200 must be at most 200 characters
   */
  plan?: string;
}

@Route('admin/organizations')
@Tags('Admin: organizations')
@Security('admin')
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(400, 'Invalid body; error.details.field names the field')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token')
export class OrganizationsController extends Controller {
  /**
   * Creates an organization with a zero credit balance and an active subscription.
   * @summary Create an organization
   */
  @Post()
  @SuccessResponse(201, 'Created')
  public async createOrganization(@Request() req: ExRequest, @Body() body: CreateOrganizationBody): Promise<OrganizationView> {
    const name = requireText('name', body.name, 200);
    const plan = body.plan === undefined ? undefined : requireText('plan', body.plan, 200);
    const org = await createOrganization(appContext(req).db, { name, plan });
    const view = organizationView(org);
    await auditChange(req, { organizationId: org.id, action: 'organization.created', after: view });
    this.setStatus(201);
    return view;
  }

  /**
   * Lists every organization, oldest first.
   * @summary List organizations
   */
  @Get()
  public async listOrganizations(@Request() req: ExRequest): Promise<OrganizationList> {
    const orgs = await listOrganizations(appContext(req).db);
    return { organizations: orgs.map(organizationView), total: orgs.length };
  }

  /**
   * One organization by id: its name and when it was created.
   * @summary Retrieve an organization
   */
  @Get('{organizationId}')
  @Response<ErrorEnvelope>(404, 'Unknown organization')
  public async getOrganization(@Request() req: ExRequest, @Path() organizationId: string): Promise<OrganizationView> {
    return organizationView(await requireOrganization(appContext(req).db, organizationId));
  }
}
