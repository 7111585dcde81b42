// Admin: revenue. Records imported by hand (upsert by id; amounts are USD decimal strings, negative
// for refunds; an import makes the `import` connection active) and the Stripe connection (secret
// key stored sealed, never shown again; sync on demand and periodically). Margin reads the records
// of active connections.
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext, service } from '../core/app-context.js';
import { requireOrganization } from '../core/control/organizations.js';
import {
  importRevenueRecords,
  listRevenueConnections,
  listRevenueRecords,
  type RevenueConnection,
  type RevenueRecord,
  type RevenueRecordInput,
  type RevenueSource,
} from './revenue.store.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import { auditChange } from '../core/http/audit-trail.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import { Big, fractionDigits, isDecimalString, MONEY_SCALE } from '../core/money.js';
import type { StripeSyncReport } from './stripe-sync.js';
import type { UnmatchedCustomers } from './stripe-records.js';
import { parseDateParam } from '../core/time.js';
import { requireText } from '../core/http/input.js';

export interface RevenueRecordBody {
  /** Your id of the record; importing the same id again replaces it. 1–255 characters. */
  id: string;
  /** The end user's external id (the `user_id` sent on events); null or absent = unattributed revenue. */
  user_id?: string | null;
  /** Shown as the end user's name in margin answers. */
  customer_name?: string | null;
  /** USD as a decimal string, at most 12 fractional digits; negative for a refund. */
  amount: string;
  /** Billing period start, ISO 8601 (inclusive). */
  period_start: string;
  /** Billing period end, ISO 8601 (exclusive), after period_start. */
  period_end: string;
}

export interface ImportRevenueRecordsBody {
  /** 1 to 10000 records. */
  records: RevenueRecordBody[];
}

export interface RevenueConnectionView {
  kind: RevenueSource;
  status: 'active' | 'inactive';
  last_synced_at: string | null;
  created_at: string;
  updated_at: string;
  /** Stripe connections only. The key itself is never returned. */
  stripe?: {
    key_hint: string;
    livemode: boolean;
    customer_metadata_key: string;
    unmatched_customers: UnmatchedCustomers;
  };
  /** Stripe connections: the sync in progress, else the last one; null before the first. */
  last_sync?: StripeSyncReport | null;
}

export interface RevenueConnectionList {
  connections: RevenueConnectionView[];
  total: number;
}

export interface ImportRevenueRecordsResult {
  organization_id: string;
  /** Distinct record ids written (the last of a repeated id wins). */
  upserted: number;
  connection: RevenueConnectionView;
}

export interface RevenueRecordView {
  source: RevenueSource;
  id: string;
  user_id: string | null;
  customer_name: string | null;
  /** Stripe customer id for synced records. */
  external_customer_id: string | null;
  amount: string;
  currency: string;
  period_start: string;
  period_end: string;
  updated_at: string;
}

export interface RevenueRecordList {
  records: RevenueRecordView[];
  total: number;
}

export interface ConnectStripeBody {
  /** A Stripe secret key or a restricted key with read access to customers, invoices and credit notes. */
  secret_key: string;
  /** Customer metadata key holding your end user's external id. Default `user_id`. */
  customer_metadata_key?: string;
  /**
   * Customers without that metadata key: `customer_id` (default) uses the Stripe customer id as the
   * external id; `unattributed` leaves their revenue unattributed.
   */
  unmatched_customers?: UnmatchedCustomers;
}

export interface StripeSyncResult {
  organization_id: string;
  sync: StripeSyncReport;
}

const MAX_RECORDS = 10_000;
const AMOUNT_LIMIT = new Big('1e18');

@Route('admin/organizations')
@Tags('Admin: revenue')
@Security('admin', ['organization:admin'])
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token (or session)')
@Response<ErrorEnvelope>(403, 'A session of a person who is not an owner or admin of this organization, or without X-CSRF-Token on a write')
@Response<ErrorEnvelope>(404, 'Unknown organization')
export class RevenueController extends Controller {
  /**
   * Imports revenue records (upsert by id) and makes the `import` connection active.
   * @summary Import revenue records
   */
  @Post('{organizationId}/revenue-records')
  @Response<ErrorEnvelope>(400, 'Invalid body; error.details.field names the field')
  public async importRevenueRecords(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: ImportRevenueRecordsBody,
  ): Promise<ImportRevenueRecordsResult> {
    const records = parseRecords(body.records);
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const { upserted, connection } = await importRevenueRecords(db, organizationId, records);
    await auditChange(req, { organizationId, action: 'revenue_records.imported', details: { upserted } });
    // Revenue moved: end-user margin alerts (revenue-moved.ts) for every end user of the organization.
    await service(req, 'revenueMoved')(db, organizationId, new Date());
    return { organization_id: organizationId, upserted, connection: connectionView(connection) };
  }

  /**
   * Every revenue record of the organization (all sources), by billing period.
   * @summary List revenue records
   */
  @Get('{organizationId}/revenue-records')
  public async listRevenueRecords(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Query() source?: RevenueSource,
  ): Promise<RevenueRecordList> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const records = (await listRevenueRecords(db, organizationId)).filter((r) => source === undefined || r.source === source);
    return { records: records.map(recordView), total: records.length };
  }

  /**
   * The organization's revenue connections (`import`, `stripe`).
   * @summary List revenue connections
   */
  @Get('{organizationId}/revenue-connections')
  public async listRevenueConnections(@Request() req: ExRequest, @Path() organizationId: string): Promise<RevenueConnectionList> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const sync = service(req, 'revenueSync');
    const list = await listRevenueConnections(db, organizationId);
    const views = await Promise.all(
      list.map(async (c) => (c.kind === 'stripe' ? connectionView(c, await sync.report(organizationId)) : connectionView(c))),
    );
    return { connections: views, total: views.length };
  }

  /**
   * Connects a Stripe account: checks the key with Stripe, stores it encrypted and starts the first
   * sync (follow it with GET …/revenue-connections/stripe). Connecting again replaces the key.
   * @summary Connect Stripe
   */
  @Post('{organizationId}/revenue-connections/stripe')
  @SuccessResponse(201, 'Created')
  @Response<ErrorEnvelope>(400, 'Invalid body, or Stripe refused the key')
  @Response<ErrorEnvelope>(503, 'Stripe could not be reached')
  public async connectStripe(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: ConnectStripeBody,
  ): Promise<RevenueConnectionView> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const sync = service(req, 'revenueSync');
    const previous = (await listRevenueConnections(db, organizationId)).find((c) => c.kind === 'stripe');
    const connection = await sync.connectStripe(organizationId, {
      secretKey: body.secret_key,
      customerMetadataKey: body.customer_metadata_key,
      unmatchedCustomers: body.unmatched_customers,
    });
    await auditChange(req, {
      organizationId,
      action: 'revenue_connection.connected',
      ...(previous ? { before: connectionView(previous) } : {}),
      after: connectionView(connection),
    });
    const { report } = await sync.startSync(organizationId);
    this.setStatus(201);
    return connectionView(connection, { ...report });
  }

  /**
   * The Stripe connection and its sync in progress or last sync.
   * @summary Retrieve the Stripe connection
   */
  @Get('{organizationId}/revenue-connections/stripe')
  @Response<ErrorEnvelope>(404, 'No Stripe connection')
  public async getStripeConnection(@Request() req: ExRequest, @Path() organizationId: string): Promise<RevenueConnectionView> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const connection = (await listRevenueConnections(db, organizationId)).find((c) => c.kind === 'stripe');
    if (!connection) throw new NotFoundError('revenue connection', 'stripe');
    return connectionView(connection, await service(req, 'revenueSync').report(organizationId));
  }

  /**
   * Disconnects Stripe: the key is forgotten and its records stop counting as revenue.
   * @summary Disconnect Stripe
   */
  @Delete('{organizationId}/revenue-connections/stripe')
  @Response<ErrorEnvelope>(404, 'No Stripe connection')
  public async disconnectStripe(@Request() req: ExRequest, @Path() organizationId: string): Promise<RevenueConnectionView> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const sync = service(req, 'revenueSync');
    const disconnected = await sync.disconnectStripe(organizationId);
    await auditChange(req, { organizationId, action: 'revenue_connection.disconnected', after: connectionView(disconnected) });
    return connectionView(disconnected, await sync.report(organizationId));
  }

  /**
   * Syncs now: 202 with the running sync (progress on GET …/stripe), or with `wait=true` 200 and
   * the finished sync. A sync already running is joined, not repeated.
   * @summary Sync Stripe now
   */
  @Post('{organizationId}/revenue-connections/stripe/sync')
  @SuccessResponse(202, 'Accepted')
  @Response<ErrorEnvelope>(404, 'No active Stripe connection')
  public async syncStripe(@Request() req: ExRequest, @Path() organizationId: string, @Query() wait?: boolean): Promise<StripeSyncResult> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const { report, done } = await service(req, 'revenueSync').startSync(organizationId);
    if (wait) {
      this.setStatus(200);
      return { organization_id: organizationId, sync: await done };
    }
    this.setStatus(202);
    return { organization_id: organizationId, sync: { ...report } };
  }
}

function parseRecords(records: RevenueRecordBody[]): RevenueRecordInput[] {
  if (!Array.isArray(records) || records.length === 0) throw new ValidationError('records', 'must hold at least one record');
  if (records.length > MAX_RECORDS) throw new ValidationError('records', `must hold at most ${MAX_RECORDS} records per request`);
  return records.map((r, i) => {
    const f = (name: string) => `records[${i}].${name}`;
    const id = requireText(f('id'), r.id, 255);
    const userId = r.user_id === undefined || r.user_id === null ? null : requireText(f('user_id'), r.user_id, 255);
    const customerName =
      r.customer_name === undefined || r.customer_name === null ? null : requireText(f('customer_name'), r.customer_name, 500);
    if (typeof r.amount !== 'string' || !isDecimalString(r.amount) || fractionDigits(r.amount) > MONEY_SCALE) {
      throw new ValidationError(f('amount'), 'must be a USD decimal string with at most 12 fractional digits, such as "49.99" or "-10"');
    }
    if (new Big(r.amount).abs().gte(AMOUNT_LIMIT)) throw new ValidationError(f('amount'), 'must be below 1e18 in magnitude');
    const periodStart = parseDateParam(f('period_start'), r.period_start)!;
    const periodEnd = parseDateParam(f('period_end'), r.period_end)!;
    if (periodEnd.getTime() <= periodStart.getTime()) throw new ValidationError(f('period_end'), 'must be after period_start');
    return { id, userId, customerName, amount: new Big(r.amount).toFixed(), periodStart, periodEnd };
  });
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

function connectionView(c: RevenueConnection, lastSync?: StripeSyncReport | null): RevenueConnectionView {
  const view: RevenueConnectionView = {
    kind: c.kind,
    status: c.status,
    last_synced_at: iso(c.lastSyncedAt),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
  if (c.kind === 'stripe') {
    const cfg = c.config as Record<string, unknown>;
    if (typeof cfg.key_hint === 'string') {
      view.stripe = {
        key_hint: cfg.key_hint,
        livemode: cfg.livemode === true,
        customer_metadata_key: String(cfg.customer_metadata_key),
        unmatched_customers: cfg.unmatched_customers as UnmatchedCustomers,
      };
    }
    view.last_sync = lastSync ?? null;
  }
  return view;
}

function recordView(r: RevenueRecord): RevenueRecordView {
  return {
    source: r.source,
    id: r.id,
    user_id: r.userId,
    customer_name: r.customerName,
    external_customer_id: r.externalCustomerId,
    amount: new Big(r.amount).toFixed(),
    currency: r.currency,
    period_start: r.periodStart.toISOString(),
    period_end: r.periodEnd.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}
