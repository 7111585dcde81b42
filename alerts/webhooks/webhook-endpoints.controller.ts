// Admin: an organization's webhook endpoints (create with the signing secret shown once; list,
// read, change, disable/enable and rotate the secret through PATCH; delete), each endpoint's
// attempt log, the organization's events, and re-sending an event by hand.
import type { Request as ExRequest } from 'express';
import {
  Body,
  Controller,
  Delete,
  Get,
  Patch,
  Path,
  Post,
  Query,
  Request,
  Response,
  Route,
  Security,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import { appContext } from '../../core/app-context.js';
import { requireOrganization } from '../../core/control/organizations.js';
import { auditChange } from '../../core/http/audit-trail.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { pageParams } from '../../core/http/paging.js';
import { nudgeDeliveries } from './delivery-worker.js';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  resendEvent,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
} from './endpoints.store.js';
import { listAttempts, listEvents } from './webhook-log.store.js';
import { newEventId } from './outbox.js';
import {
  attemptView,
  endpointView,
  eventView,
  parseDescription,
  parseEnabledEvents,
  parseEndpointUrl,
  parseGraceSeconds,
  type CreateWebhookEndpointBody,
  type UpdateWebhookEndpointBody,
  type WebhookAttemptList,
  type WebhookEndpointList,
  type WebhookEndpointView,
  type WebhookEndpointWithSecret,
  type WebhookEventList,
  type WebhookResendResult,
} from './webhook-views.js';

@Route('admin/organizations')
@Tags('Admin: webhooks')
@Security('admin', ['organization:admin'])
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token (or session)')
@Response<ErrorEnvelope>(403, 'A session of a person who is not an owner or admin of this organization, or without X-CSRF-Token on a write')
@Response<ErrorEnvelope>(404, 'Unknown organization, endpoint or event')
export class WebhookEndpointsController extends Controller {
  /**
   * Adds an endpoint. Its signing secret (`whsec_…`) is in this response only.
   * @summary Create a webhook endpoint
   */
  @Post('{organizationId}/webhook-endpoints')
  @SuccessResponse(201, 'Created')
  public async createWebhookEndpoint(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: CreateWebhookEndpointBody,
  ): Promise<WebhookEndpointWithSecret> {
    const ctx = appContext(req);
    const url = parseEndpointUrl(body.url, ctx.config.webhookAllowPrivateUrls);
    const enabledEvents = parseEnabledEvents(body.enabled_events);
    const description = parseDescription(body.description);
    await requireOrganization(ctx.db, organizationId);
    const { endpoint, secret } = await createEndpoint(ctx.db, ctx.masterKey, organizationId, { url, enabledEvents, description });
    await auditChange(req, { organizationId, action: 'webhook_endpoint.created', after: endpointView(endpoint) });
    this.setStatus(201);
    return { ...endpointView(endpoint), secret };
  }

  /**
   * The organization's endpoints (secrets are never listed).
   * @summary List webhook endpoints
   */
  @Get('{organizationId}/webhook-endpoints')
  public async listWebhookEndpoints(@Request() req: ExRequest, @Path() organizationId: string): Promise<WebhookEndpointList> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const endpoints = await listEndpoints(db, organizationId);
    return { webhook_endpoints: endpoints.map(endpointView), total: endpoints.length };
  }

  /**
   * One endpoint of the organization: its URL, enabled events, status (and why it was disabled) and
   * when a rotated secret stops signing. Its secret is never shown again.
   * @summary Retrieve a webhook endpoint
   */
  @Get('{organizationId}/webhook-endpoints/{endpointId}')
  public async getWebhookEndpoint(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Path() endpointId: string,
  ): Promise<WebhookEndpointView> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    return endpointView(await getEndpoint(db, organizationId, endpointId));
  }

  /**
   * Changes an endpoint: `url`, `enabled_events`, `description`; `enabled: false` disables it,
   * `enabled: true` re-enables it (what waited is sent again); `rotate_secret: true` issues a new
   * secret (in this response only) while the old one keeps signing for `rotation_grace_seconds`
   * (default 86400; 0 = stop at once).
   * @summary Update a webhook endpoint
   */
  @Patch('{organizationId}/webhook-endpoints/{endpointId}')
  public async updateWebhookEndpoint(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Path() endpointId: string,
    @Body() body: UpdateWebhookEndpointBody,
  ): Promise<WebhookEndpointView & { secret?: string }> {
    const ctx = appContext(req);
    const url = body.url === undefined ? undefined : parseEndpointUrl(body.url, ctx.config.webhookAllowPrivateUrls);
    const enabledEvents = body.enabled_events === undefined ? undefined : parseEnabledEvents(body.enabled_events);
    const description = body.description === undefined ? undefined : parseDescription(body.description);
    const grace = parseGraceSeconds(body.rotation_grace_seconds);
    await requireOrganization(ctx.db, organizationId);
    const before = endpointView(await getEndpoint(ctx.db, organizationId, endpointId));
    await updateEndpoint(ctx.db, organizationId, endpointId, { url, enabledEvents, description, enabled: body.enabled });
    if (body.enabled === true) nudgeDeliveries();
    const rotated =
      body.rotate_secret === true ? await rotateEndpointSecret(ctx.db, ctx.masterKey, organizationId, endpointId, grace) : null;
    const after = endpointView(rotated?.endpoint ?? (await getEndpoint(ctx.db, organizationId, endpointId)));
    // A rotation is recorded as the fact, never the secret.
    await auditChange(req, {
      organizationId,
      action: 'webhook_endpoint.updated',
      before,
      after,
      details: { secret_rotated: rotated !== null },
    });
    return rotated ? { ...after, secret: rotated.secret } : after;
  }

  /**
   * Deletes an endpoint; its undelivered events are dropped.
   * @summary Delete a webhook endpoint
   */
  @Delete('{organizationId}/webhook-endpoints/{endpointId}')
  public async deleteWebhookEndpoint(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Path() endpointId: string,
  ): Promise<WebhookEndpointView> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const view = endpointView(await deleteEndpoint(db, organizationId, endpointId));
    await auditChange(req, { organizationId, action: 'webhook_endpoint.deleted', before: view });
    return view;
  }

  /**
   * Every delivery attempt to the endpoint, newest first: time, outcome, status, latency, response excerpt.
   * @summary List an endpoint's delivery attempts
   */
  @Get('{organizationId}/webhook-endpoints/{endpointId}/attempts')
  public async listWebhookAttempts(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Path() endpointId: string,
    @Query() limit?: number,
    @Query() offset?: number,
  ): Promise<WebhookAttemptList> {
    const page = pageParams(limit, offset);
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    await getEndpoint(db, organizationId, endpointId);
    const { attempts, total } = await listAttempts(db, organizationId, endpointId, page);
    return { attempts: attempts.map(attemptView), total, ...page };
  }

  /**
   * Re-sends an event to the endpoint now (also one it never had, or already got).
   * @summary Resend a webhook event
   */
  @Post('{organizationId}/webhook-endpoints/{endpointId}/events/{eventId}/resend')
  @SuccessResponse(202, 'Queued')
  @Response<ErrorEnvelope>(409, 'The endpoint is disabled')
  public async resendWebhookEvent(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Path() endpointId: string,
    @Path() eventId: string,
  ): Promise<WebhookResendResult> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    await resendEvent(db, organizationId, endpointId, eventId);
    nudgeDeliveries();
    this.setStatus(202);
    return { event_id: eventId, endpoint_id: endpointId, status: 'queued' };
  }

  /**
   * Sends a `webhook.test` event to this endpoint (queued like any event; see its attempts).
   * @summary Send a test event
   */
  @Post('{organizationId}/webhook-endpoints/{endpointId}/test')
  @SuccessResponse(202, 'Queued')
  public async sendWebhookTestEvent(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Path() endpointId: string,
  ): Promise<WebhookResendResult> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const eventId = await sendTestEvent(db, organizationId, endpointId, newEventId());
    nudgeDeliveries();
    this.setStatus(202);
    return { event_id: eventId, endpoint_id: endpointId, status: 'queued' };
  }

  /**
   * The organization's webhook events, newest first, with their delivery state per endpoint.
   * @summary List webhook events
   */
  @Get('{organizationId}/webhook-events')
  public async listWebhookEvents(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Query() type?: string,
    @Query() limit?: number,
    @Query() offset?: number,
  ): Promise<WebhookEventList> {
    const page = pageParams(limit, offset);
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const { events, total } = await listEvents(db, organizationId, type ?? null, page);
    return { events: events.map(eventView), total, ...page };
  }
}
