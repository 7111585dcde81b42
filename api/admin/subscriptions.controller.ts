// Admin: billing subscriptions. At most one is active; ingestion answers 402 SUBSCRIPTION_INACTIVE
// when none is, and stamps each accepted event with the active one's id.
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Patch, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext } from '../../core/app-context.js';
import { ingestSettingsChanged } from './ingest-settings.js';
import { DEFAULT_PLAN, requireOrganization } from '../../core/control/organizations.js';
import { createSubscription, listSubscriptions, setSubscriptionStatus, type SubscriptionStatus } from '../../core/control/subscriptions.js';
import { auditChange } from '../../core/http/audit-trail.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { requireText } from '../../core/http/input.js';
import { subscriptionView, type SubscriptionList, type SubscriptionView } from './admin-views.js';

export interface CreateSubscriptionBody {
  /**
   * Plan name; default "default".
   * @minLength 1 must not be empty
   * @maxLength 200 must be at most 200 characters
   */
  plan?: string;
  /** Default `active`; a new active subscription cancels the current active one. */
  status?: SubscriptionStatus;
}

export interface UpdateSubscriptionBody {
  /** `canceled` ends the subscription now; `active` conflicts (409) while another one is active. */
  status: SubscriptionStatus;
}

@Route('admin/organizations')
@Tags('Admin: subscriptions')
@Security('admin')
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token')
@Response<ErrorEnvelope>(404, 'Unknown organization or subscription')
export class SubscriptionsController extends Controller {
  /**
   * Starts a subscription on a plan (default "default"). A new `active` subscription cancels the
   * active one: at most one is active, and ingestion answers 402 SUBSCRIPTION_INACTIVE while none
   * is.
   * @summary Start a subscription
   */
  @Post('{organizationId}/subscriptions')
  @SuccessResponse(201, 'Created')
  @Response<ErrorEnvelope>(400, 'Invalid body; error.details.field names the field')
  public async createSubscription(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: CreateSubscriptionBody,
  ): Promise<SubscriptionView> {
    const plan = body.plan === undefined ? DEFAULT_PLAN : requireText('plan', body.plan, 200);
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const subscription = await createSubscription(db, organizationId, { plan, status: body.status });
    ingestSettingsChanged(req, organizationId);
    const view = subscriptionView(subscription);
    await auditChange(req, { organizationId, action: 'subscription.created', after: view });
    this.setStatus(201);
    return view;
  }

  /**
   * Every subscription of the organization, oldest first.
   * @summary List subscriptions
   */
  @Get('{organizationId}/subscriptions')
  public async listSubscriptions(@Request() req: ExRequest, @Path() organizationId: string): Promise<SubscriptionList> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const subscriptions = await listSubscriptions(db, organizationId);
    return { subscriptions: subscriptions.map(subscriptionView), total: subscriptions.length };
  }

  /**
   * Changes a subscription's status: `canceled` ends it now; `active` answers 409 while another
   * subscription is active. Ingestion accepts events only while one is active.
   * @summary Change a subscription's status
   */
  @Patch('{organizationId}/subscriptions/{subscriptionId}')
  @Response<ErrorEnvelope>(400, 'Invalid body; error.details.field names the field')
  @Response<ErrorEnvelope>(409, 'Another subscription is already active')
  public async updateSubscription(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Path() subscriptionId: string,
    @Body() body: UpdateSubscriptionBody,
  ): Promise<SubscriptionView> {
    const subscription = await setSubscriptionStatus(appContext(req).db, organizationId, subscriptionId, body.status);
    ingestSettingsChanged(req, organizationId);
    const view = subscriptionView(subscription);
    await auditChange(req, { organizationId, action: 'subscription.updated', after: view });
    return view;
  }
}
