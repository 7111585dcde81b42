// The Stripe revenue connection: connect (validate and store the secret key sealed under the
// master key), sync (a full read of customers, invoices and credit notes through the `stripe`
// package, mapped by stripe-records.ts and written with replaceRevenueRecords, so voided invoices
// disappear), on demand and periodically. A sync is idempotent: concurrent runs on several
// replicas write the same records. Progress is logged and visible while it runs.
import Stripe from 'stripe';
import { sealSecret, unsealSecret } from '../core/auth/secrets.js';
import type { ControlDb } from '../core/control/db.js';
import {
  getRevenueConnection,
  listRevenueConnectionsOfKind,
  replaceRevenueRecords,
  upsertRevenueConnection,
  type RevenueConnection,
} from './revenue.store.js';
import { NotFoundError, ServiceUnavailableError, ValidationError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import {
  DEFAULT_CUSTOMER_MAPPING,
  stripeRevenueRecords,
  type StripeCreditNoteLike,
  type StripeCustomerLike,
  type StripeInvoiceLike,
  type StripeSnapshot,
  type UnmatchedCustomers,
} from './stripe-records.js';
import type { RevenueMoved } from './revenue-moved.js';

declare module '../core/app-context.js' {
  interface AppServices {
    /** Revenue connections: Stripe connect and sync (on demand and periodic). */
    revenueSync: RevenueSync;
  }
}

/** Where the Stripe API is (tests point it at stripe-mock); default api.stripe.com over HTTPS. */
interface StripeApiAddress {
  host: string;
  port: number;
  protocol: 'http' | 'https';
}

export interface RevenueSyncOptions {
  stripeApi?: StripeApiAddress;
  /** How often the periodic job looks for connections due a sync; 0 disables it. Default 60 s. */
  checkIntervalMs?: number;
  /** A connection is due when its last sync is older than this. Default 1 h. */
  syncEveryMs?: number;
}

type SyncState = 'running' | 'succeeded' | 'failed';

/** One sync run; counts grow while it runs. */
export interface StripeSyncReport {
  state: SyncState;
  started_at: string;
  finished_at: string | null;
  customers: number;
  invoices: number;
  credit_notes: number;
  /** Records the sync wrote (invoice lines + credit-note lines). */
  records_written: number;
  /** Records of earlier syncs that Stripe no longer reports as revenue (e.g. voided since). */
  records_deleted: number;
  skipped_non_usd: number;
  skipped_not_final: number;
  /** Why the run failed (never contains the key). */
  error: string | null;
}

/** What a Stripe connection keeps in revenue_connections.config. */
interface StripeConnectionConfig {
  secret_key_sealed: string;
  /** Last 4 characters, to recognise the key. */
  key_hint: string;
  livemode: boolean;
  customer_metadata_key: string;
  unmatched_customers: UnmatchedCustomers;
  last_sync?: StripeSyncReport;
}

export interface ConnectStripeInput {
  secretKey: string;
  customerMetadataKey?: string;
  unmatchedCustomers?: UnmatchedCustomers;
}

const KEY_FORMAT = /^(sk|rk)_(live|test)_[A-Za-z0-9]{8,}$/;
const keyAad = (organizationId: string) => `revenue_connections:${organizationId}:stripe`;

interface Deps {
  db: ControlDb;
  masterKey: Buffer;
  logger: Logger;
  /** After a sync wrote records: the margin alerts (the api registers them); none when absent. */
  revenueMoved?: RevenueMoved;
}

interface SyncEntry {
  report: StripeSyncReport;
  done: Promise<StripeSyncReport>;
}

export class RevenueSync {
  private readonly running = new Map<string, SyncEntry>();
  /** Starts whose connection read is under way, so concurrent callers share them. */
  private readonly starting = new Map<string, Promise<SyncEntry>>();
  private timer: NodeJS.Timeout | null = null;
  private tick: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly deps: Deps,
    private readonly options: RevenueSyncOptions = {},
  ) {}

  /** Starts the periodic job (when enabled). */
  start(): void {
    const every = this.options.checkIntervalMs ?? 60_000;
    if (every <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      this.tick ??= this.syncDue().finally(() => (this.tick = null));
    }, every);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.tick;
    await Promise.allSettled(this.starting.values());
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  client(secretKey: string): Stripe {
    const api = this.options.stripeApi;
    return new Stripe(secretKey, {
      maxNetworkRetries: 2,
      timeout: 30_000,
      appInfo: { name: 'marginal' },
      ...(api ? { host: api.host, port: api.port, protocol: api.protocol } : {}),
    });
  }

  /** Validates the key against Stripe, stores it sealed and makes the connection active. */
  async connectStripe(organizationId: string, input: ConnectStripeInput): Promise<RevenueConnection> {
    const key = input.secretKey.trim();
    if (!KEY_FORMAT.test(key)) {
      throw new ValidationError('secret_key', 'must be a Stripe secret or restricted key (sk_live_…, sk_test_…, rk_…)');
    }
    const metadataKey = (input.customerMetadataKey ?? DEFAULT_CUSTOMER_MAPPING.metadataKey).trim();
    if (metadataKey.length === 0 || metadataKey.length > 40) {
      throw new ValidationError('customer_metadata_key', 'must be 1 to 40 characters (a Stripe metadata key)');
    }
    try {
      await this.client(key).customers.list({ limit: 1 });
    } catch (err) {
      throw stripeFault(err, 'secret_key');
    }
    const config: StripeConnectionConfig = {
      secret_key_sealed: sealSecret(this.deps.masterKey, key, keyAad(organizationId)),
      key_hint: key.slice(-4),
      livemode: key.includes('_live_'),
      customer_metadata_key: metadataKey,
      unmatched_customers: input.unmatchedCustomers ?? DEFAULT_CUSTOMER_MAPPING.unmatchedCustomers,
    };
    return upsertRevenueConnection(this.deps.db, organizationId, 'stripe', { status: 'active', config: { ...config } });
  }

  /** Inactive, key forgotten; its records stay but no longer count as revenue. */
  async disconnectStripe(organizationId: string): Promise<RevenueConnection> {
    const existing = await getRevenueConnection(this.deps.db, organizationId, 'stripe');
    if (!existing) throw new NotFoundError('revenue connection', 'stripe');
    const { last_sync } = existing.config as Partial<StripeConnectionConfig>;
    return upsertRevenueConnection(this.deps.db, organizationId, 'stripe', {
      status: 'inactive',
      config: last_sync ? { last_sync } : {},
    });
  }

  /** The run in progress, else the last one recorded, else null. */
  async report(organizationId: string): Promise<StripeSyncReport | null> {
    const live = this.running.get(organizationId);
    if (live) return { ...live.report };
    const conn = await getRevenueConnection(this.deps.db, organizationId, 'stripe');
    return (conn?.config as Partial<StripeConnectionConfig> | undefined)?.last_sync ?? null;
  }

  /**
   * Starts a sync unless one is running for the organization (then joins it). Resolves with the
   * final report; `report()` shows progress meanwhile.
   */
  async startSync(organizationId: string): Promise<SyncEntry> {
    for (;;) {
      const live = this.running.get(organizationId);
      if (live?.report.state === 'running') return live;
      // Finished but still recording its report: a sync asked for now must read Stripe again.
      if (live) {
        await live.done.catch(() => undefined);
        continue;
      }
      // Claimed before the first await, so callers arriving while the connection is read join
      // this start (and its refusal) instead of racing it to a second sync.
      let starting = this.starting.get(organizationId);
      if (!starting) {
        starting = this.beginSync(organizationId).finally(() => this.starting.delete(organizationId));
        this.starting.set(organizationId, starting);
      }
      return starting;
    }
  }

  private async beginSync(organizationId: string): Promise<SyncEntry> {
    const conn = await getRevenueConnection(this.deps.db, organizationId, 'stripe');
    if (conn?.status !== 'active') throw new NotFoundError('active revenue connection', 'stripe');
    const report: StripeSyncReport = {
      state: 'running',
      started_at: new Date().toISOString(),
      finished_at: null,
      customers: 0,
      invoices: 0,
      credit_notes: 0,
      records_written: 0,
      records_deleted: 0,
      skipped_non_usd: 0,
      skipped_not_final: 0,
      error: null,
    };
    const done = this.runSync(organizationId, conn, report).finally(() => this.running.delete(organizationId));
    const entry = { report, done };
    this.running.set(organizationId, entry);
    return entry;
  }

  private async runSync(organizationId: string, conn: RevenueConnection, report: StripeSyncReport): Promise<StripeSyncReport> {
    const log = this.deps.logger.child({ organization_id: organizationId, job: 'stripe-sync' });
    const config = conn.config as unknown as StripeConnectionConfig;
    log.info('stripe sync started');
    try {
      const key = unsealSecret(this.deps.masterKey, config.secret_key_sealed, keyAad(organizationId));
      const snapshot = await fetchStripeSnapshot(this.client(key), (kind, n) => {
        report[kind] = n;
        if (n % 1000 === 0) log.info({ [kind]: n }, 'stripe sync progress');
      });
      const mapped = stripeRevenueRecords(snapshot, {
        metadataKey: config.customer_metadata_key,
        unmatchedCustomers: config.unmatched_customers,
      });
      report.skipped_non_usd = mapped.skippedNonUsd;
      report.skipped_not_final = mapped.skippedNotFinal;
      // The connection may have been disconnected or re-keyed while Stripe was being read.
      const now = await getRevenueConnection(this.deps.db, organizationId, 'stripe');
      const nowConfig = now?.config as Partial<StripeConnectionConfig> | undefined;
      if (now?.status !== 'active' || nowConfig?.secret_key_sealed !== config.secret_key_sealed) {
        throw new Error('the connection changed during the sync; nothing was written');
      }
      const written = await replaceRevenueRecords(this.deps.db, organizationId, 'stripe', mapped.records);
      report.records_written = written.upserted;
      report.records_deleted = written.deleted;
      // Revenue moved: end-user margin alerts (revenue-moved.ts); a failure here does not fail the sync.
      await this.deps
        .revenueMoved?.(this.deps.db, organizationId, new Date())
        .catch((err) => log.warn({ err }, 'margin alerts after the sync failed'));
      // Only now: readers of the live report take a final state to mean the run is over.
      report.state = 'succeeded';
    } catch (err) {
      report.state = 'failed';
      report.error = err instanceof Stripe.errors.StripeError ? `Stripe ${err.type}: ${err.message}` : (err as Error).message;
      log.warn({ err: report.error }, 'stripe sync failed');
    }
    report.finished_at = new Date().toISOString();
    await this.recordReport(organizationId, config.secret_key_sealed, report).catch((err) =>
      log.error({ err }, 'could not record the sync report'),
    );
    log.info({ ...report }, 'stripe sync finished');
    return { ...report };
  }

  private async recordReport(organizationId: string, sealedKey: string, report: StripeSyncReport): Promise<void> {
    await this.deps.db.transaction(async (tx) => {
      const conn = await getRevenueConnection(tx, organizationId, 'stripe');
      const config = conn?.config as Partial<StripeConnectionConfig> | undefined;
      if (!conn || config?.secret_key_sealed !== sealedKey) return; // re-keyed or removed meanwhile
      await upsertRevenueConnection(tx, organizationId, 'stripe', { status: conn.status, config: { ...config, last_sync: { ...report } } });
    });
  }

  /** One pass of the periodic job: every active Stripe connection whose last sync is stale. */
  private async syncDue(): Promise<void> {
    const every = this.options.syncEveryMs ?? 3_600_000;
    const connections = await listRevenueConnectionsOfKind(this.deps.db, 'stripe').catch((err) => {
      this.deps.logger.error({ err }, 'stripe sync: could not list connections');
      return [];
    });
    for (const conn of connections) {
      if (this.stopped) return;
      if (conn.lastSyncedAt && Date.now() - conn.lastSyncedAt.getTime() < every) continue;
      const lastTry = (conn.config as Partial<StripeConnectionConfig>).last_sync?.started_at;
      if (lastTry && Date.now() - Date.parse(lastTry) < every) continue; // failed recently: wait a period
      try {
        await (await this.startSync(conn.organizationId)).done;
      } catch (err) {
        this.deps.logger.warn({ err, organization_id: conn.organizationId }, 'stripe sync could not start');
      }
    }
  }
}

type Progress = (kind: 'customers' | 'invoices' | 'credit_notes', count: number) => void;

/** Everything the mapping needs, read with the SDK's auto-pagination (100 per page). */
async function fetchStripeSnapshot(stripe: Stripe, progress: Progress = () => undefined): Promise<StripeSnapshot> {
  const customers: StripeCustomerLike[] = [];
  for await (const c of stripe.customers.list({ limit: 100 })) {
    customers.push({ id: c.id, name: c.name ?? null, email: c.email ?? null, metadata: c.metadata ?? {} });
    progress('customers', customers.length);
  }
  const invoices: StripeInvoiceLike[] = [];
  for await (const inv of stripe.invoices.list({ limit: 100 })) {
    if (!inv.id) continue;
    let lines = inv.lines.data;
    if (inv.lines.has_more) {
      lines = [];
      for await (const l of stripe.invoices.listLineItems(inv.id, { limit: 100 })) lines.push(l);
    }
    invoices.push({ id: inv.id, status: inv.status ?? null, currency: inv.currency, customer: refOf(inv.customer), lines });
    progress('invoices', invoices.length);
  }
  const creditNotes: StripeCreditNoteLike[] = [];
  for await (const note of stripe.creditNotes.list({ limit: 100 })) {
    let lines = note.lines.data;
    if (note.lines.has_more) {
      lines = [];
      for await (const l of stripe.creditNotes.listLineItems(note.id, { limit: 100 })) lines.push(l);
    }
    creditNotes.push({
      id: note.id,
      status: note.status,
      currency: note.currency,
      customer: refOf(note.customer),
      invoice: refOf(note.invoice),
      created: note.created,
      effective_at: note.effective_at ?? null,
      lines: lines.map((l) => ({
        id: l.id,
        amount: l.amount,
        discount_amounts: l.discount_amounts,
        invoice_line_item: l.invoice_line_item ?? null,
      })),
    });
    progress('credit_notes', creditNotes.length);
  }
  return { customers, invoices, creditNotes };
}

function refOf(r: string | { id?: string } | null | undefined): string | null {
  if (r === null || r === undefined) return null;
  return typeof r === 'string' ? r : (r.id ?? null);
}

/** A Stripe error as the admin should see it: a bad key is the caller's fault, the rest is Stripe's. */
function stripeFault(err: unknown, field: string): Error {
  if (err instanceof Stripe.errors.StripeAuthenticationError || err instanceof Stripe.errors.StripePermissionError) {
    return new ValidationError(field, `Stripe refused the key: ${err.message}`);
  }
  if (err instanceof Stripe.errors.StripeError) {
    return new ServiceUnavailableError('Stripe could not be reached', `Stripe ${err.type}: ${err.message}`);
  }
  return err as Error;
}
