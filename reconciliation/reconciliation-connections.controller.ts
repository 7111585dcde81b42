// Admin: reconciliation connections. An organization's admin key for OpenAI's or Anthropic's cost
// API, stored sealed; the api polls the provider's last days every hour (provider-polling.ts), or
// at once with POST …/poll. The key is never shown again (its last 4 characters are).
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Put, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext } from '../core/app-context.js';
import { requireOrganization } from '../core/control/organizations.js';
import { NotFoundError } from '../core/errors.js';
import { auditChange } from '../core/http/audit-trail.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import type { PolledProvider } from './provider-cost-apis.js';
import { connectionView, connectProvider, parsePolledProvider, pollConnection, type ConnectionView } from './provider-polling.js';
import type { ImportSummary, UsageImportSummary } from './reconciliation.service.js';
import { deleteConnection, listConnections } from './reconciliation-connections.store.js';

export interface ConnectProviderBody {
  /**
   * The provider's admin key (OpenAI: an admin key `sk-admin-…`; Anthropic: an Admin API key `sk-ant-admin…`).
   * @maxLength 512
   */
  admin_key: string;
  /**
   * The provider API's origin; default its public one (https://api.openai.com, https://api.anthropic.com).
   * @maxLength 2048
   */
  api_url?: string;
}

export interface ConnectionList {
  connections: ConnectionView[];
}

export interface PollResult {
  connection: ConnectionView;
  /** The costs the poll imported (as an upload's answer), or null when it failed (see connection.last_error). */
  imported: ImportSummary | null;
  /** The usage (token counts) the poll imported (as a usage upload's answer), or null when it failed. */
  usage_imported: UsageImportSummary | null;
}

@Route('admin/organizations')
@Tags('Admin: reconciliation')
@Security('admin', ['organization:admin'])
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token (or session)')
@Response<ErrorEnvelope>(403, 'A session of a person who is not an owner or admin of this organization, or without X-CSRF-Token on a write')
@Response<ErrorEnvelope>(404, 'Unknown organization or connection')
export class ReconciliationConnectionsController extends Controller {
  /**
   * Stores the organization's admin key for the provider's cost API (encrypted) and replaces an
   * earlier one. Every hour the api imports the provider's last 7 whole UTC days of costs, as an
   * upload would (each day replaced, reconciliation.variance for days beyond the tolerance), and
   * the same days of its usage report (token counts).
   * @summary Connect a provider's cost API
   * @param provider `openai` or `anthropic`.
   */
  @Put('{organizationId}/reconciliation-connections/{provider}')
  public async connectProviderCosts(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Path() provider: string,
    @Body() body: ConnectProviderBody,
  ): Promise<ConnectionView> {
    const { db, masterKey } = appContext(req);
    const p = parsePolledProvider(provider);
    await requireOrganization(db, organizationId);
    const view = connectionView(await connectProvider(db, masterKey, organizationId, p, body));
    await auditChange(req, { organizationId, action: 'reconciliation_connection.connected', after: view });
    return view;
  }

  /**
   * The organization's provider connections with their last poll (never the keys).
   * @summary List provider cost connections
   */
  @Get('{organizationId}/reconciliation-connections')
  public async listProviderConnections(@Request() req: ExRequest, @Path() organizationId: string): Promise<ConnectionList> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    return { connections: (await listConnections(db, organizationId)).map(connectionView) };
  }

  /**
   * Imports the provider's last 7 whole UTC days of costs, then of usage, now; a failure is
   * recorded on the connection.
   * @summary Poll a provider's cost API now
   * @param provider `openai` or `anthropic`.
   */
  @Post('{organizationId}/reconciliation-connections/{provider}/poll')
  public async pollProviderCosts(@Request() req: ExRequest, @Path() organizationId: string, @Path() provider: string): Promise<PollResult> {
    const { db, masterKey, services } = appContext(req);
    const c = await this.connection(req, organizationId, parsePolledProvider(provider));
    const now = services.apiClock?.() ?? new Date();
    const outcome = await pollConnection({ db, masterKey, imported: () => services.providerCostsImported }, c, now);
    const after = (await this.connection(req, organizationId, c.provider)) ?? c;
    const failed = 'error' in outcome;
    return { connection: connectionView(after), imported: failed ? null : outcome.costs, usage_imported: failed ? null : outcome.usage };
  }

  /**
   * Forgets the key and stops polling; imported figures stay.
   * @summary Disconnect a provider's cost API
   * @param provider `openai` or `anthropic`.
   */
  @Delete('{organizationId}/reconciliation-connections/{provider}')
  @SuccessResponse(204, 'Disconnected')
  public async disconnectProviderCosts(@Request() req: ExRequest, @Path() organizationId: string, @Path() provider: string): Promise<void> {
    const deleted = await deleteConnection(appContext(req).db, organizationId, parsePolledProvider(provider));
    if (!deleted) throw new NotFoundError('reconciliation connection');
    await auditChange(req, { organizationId, action: 'reconciliation_connection.disconnected', before: connectionView(deleted) });
    this.setStatus(204);
  }

  private async connection(req: ExRequest, organizationId: string, provider: PolledProvider) {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const c = (await listConnections(db, organizationId)).find((x) => x.provider === provider);
    if (!c) throw new NotFoundError('reconciliation connection');
    return c;
  }
}
