// Sends what the outbox holds. Each tick claims due deliveries of enabled endpoints (FOR UPDATE
// SKIP LOCKED, then a 60 s lease in claimed_until, so several api replicas never send the same
// attempt at once and a worker that dies mid-send leaves the row due again after the lease; on
// PGlite, whose data directory belongs to one process, a start releases every lease at once),
// sends them (one endpoint's deliveries one after another, in event order; endpoints in
// parallel), and records each attempt with its consequence in one transaction: delivered; retry
// later (retry-schedule.ts); given up after 3 days; the endpoint disabled after failing for 3 days.
// At least once: a crash after a receiver's 2xx and before the record re-sends the event, which
// receivers de-duplicate by its id. Ticks run every `pollMs` and at once when nudged in-process.
import type { ControlDb } from '../../core/control/db.js';
import type { Logger } from '../../core/logger.js';
import { RETRY_WINDOW_MS, nextAttempt } from './retry-schedule.js';
import { sendWebhook, type AttemptResult } from './send-webhook.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature.js';
import { signingSecrets } from './endpoints.store.js';
import { deliveriesAbandoned, deliveryAttempts, registerOutboxGauges } from './webhook-metrics.js';

const LEASE_MS = 60_000;
const EXCERPT_CHARS = 1000;

export interface DeliveryWorkerOptions {
  /** Allow loopback and private addresses (WEBHOOK_ALLOW_PRIVATE_URLS). */
  allowPrivateUrls: boolean;
  /** Default 250 ms. */
  pollMs?: number;
  /** Deliveries claimed per tick (default 100). */
  batch?: number;
  /** Per-attempt timeout (default 10 s). */
  timeoutMs?: number;
  /** Clock (tests move it to pass the retry window). */
  now?: () => Date;
  random?: () => number;
}

interface ClaimedRow {
  endpoint_id: string;
  event_id: string;
  organization_id: string;
  attempts: number;
  first_failed_at: Date | null;
  type: string;
  data: unknown;
  created_at: Date;
  seq: string;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

/** In-process wake-ups: code that just committed an event calls nudgeDeliveries() to skip the poll wait. */
const wakers = new Set<() => void>();
export function nudgeDeliveries(): void {
  for (const wake of wakers) wake();
}

/** The JSON body of an event as sent (and signed). */
function eventBody(row: { event_id: string; type: string; created_at: Date; organization_id: string; data: unknown }): string {
  return JSON.stringify({
    id: row.event_id,
    type: row.type,
    created: Math.floor(row.created_at.getTime() / 1000),
    organization_id: row.organization_id,
    data: row.data,
  });
}

export class DeliveryWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** The latest tick's claim statement, settled (what start() waits for). */
  private claiming: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly unregisterGauges: () => void;
  private readonly wake = () => this.kick();
  private readonly now: () => Date;

  constructor(
    private readonly db: ControlDb,
    private readonly masterKey: Buffer,
    private readonly logger: Logger,
    private readonly opts: DeliveryWorkerOptions,
  ) {
    this.now = opts.now ?? (() => new Date());
    this.unregisterGauges = registerOutboxGauges(() => this.stats());
  }

  /**
   * Starts ticking; on PGlite first releases the leases a dead predecessor left (no other process
   * can hold one). Settles after that and the first tick's claim statement (never rejects): the
   * api awaits it before it listens, so that statement does not queue ahead of a first request's
   * on the PGlite thread. Not after the deliveries: a backlog for a slow endpoint (10 s per
   * attempt) must not keep the api from listening.
   */
  start(): Promise<void> {
    wakers.add(this.wake);
    if (this.db.kind !== 'pglite') {
      this.schedule();
      return Promise.resolve();
    }
    return this.db
      .query(`UPDATE webhook_deliveries SET claimed_until = NULL WHERE claimed_until IS NOT NULL AND status = 'pending'`)
      .catch((err) => this.logger.warn({ err }, 'could not release webhook leases at start'))
      .then(() => {
        this.kick();
        return this.claiming ?? undefined;
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    wakers.delete(this.wake);
    if (this.timer) clearTimeout(this.timer);
    this.unregisterGauges();
    await this.running;
  }

  /** Runs a tick now (or right after the running one). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.tick()
      .catch((err) => this.logger.warn({ err }, 'webhook delivery tick failed'))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.kick();
        } else this.schedule();
      });
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.kick();
    }, this.opts.pollMs ?? 250);
    this.timer.unref();
  }

  /** Claims and sends one batch; a full batch asks for another tick at once. */
  private async tick(): Promise<void> {
    const batch = this.opts.batch ?? 100;
    const claiming = this.claim(batch);
    this.claiming = claiming.then(
      () => undefined,
      () => undefined,
    );
    const claimed = await claiming;
    if (claimed.length === 0) return;
    const byEndpoint = new Map<string, ClaimedRow[]>();
    for (const row of claimed) byEndpoint.set(row.endpoint_id, [...(byEndpoint.get(row.endpoint_id) ?? []), row]);
    await Promise.all(
      [...byEndpoint.values()].map(async (rows) => {
        rows.sort((a, b) => Number(a.seq) - Number(b.seq));
        for (const row of rows) await this.deliver(row);
      }),
    );
    if (claimed.length === batch) this.again = true;
  }

  private async claim(limit: number): Promise<ClaimedRow[]> {
    const now = this.now();
    return this.db.query<ClaimedRow>(
      `WITH due AS (
         SELECT d.endpoint_id, d.event_id FROM webhook_deliveries d
           JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.enabled AND w.deleted_at IS NULL
          WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.claimed_until IS NULL OR d.claimed_until <= $1)
          ORDER BY d.next_attempt_at LIMIT $2
          FOR UPDATE OF d SKIP LOCKED
       ),
       claimed AS (
         UPDATE webhook_deliveries d SET claimed_until = $3, attempts = d.attempts + 1
           FROM due WHERE d.endpoint_id = due.endpoint_id AND d.event_id = due.event_id
         RETURNING d.endpoint_id, d.event_id, d.organization_id, d.attempts, d.first_failed_at
       )
       SELECT c.*, e.type, e.data, e.created_at, e.seq, w.url, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_expires_at
         FROM claimed c JOIN webhook_events e ON e.id = c.event_id JOIN webhook_endpoints w ON w.id = c.endpoint_id`,
      [now, limit, new Date(now.getTime() + LEASE_MS)],
    );
  }

  private async deliver(row: ClaimedRow): Promise<void> {
    const body = eventBody(row);
    const sentAt = this.now();
    let result: AttemptResult;
    try {
      const secrets = signingSecrets(this.masterKey, { id: row.endpoint_id, ...row }, sentAt);
      result = await sendWebhook(
        row.url,
        { [SIGNATURE_HEADER]: signatureHeader(secrets, sentAt.getTime() / 1000, body), [EVENT_ID_HEADER]: row.event_id },
        body,
        { allowPrivate: this.opts.allowPrivateUrls, timeoutMs: this.opts.timeoutMs },
      );
    } catch (err) {
      result = { outcome: 'network_error', statusCode: null, latencyMs: 0, error: (err as Error).message, responseExcerpt: null };
    }
    deliveryAttempts.inc({ outcome: result.outcome });
    await this.record(row, sentAt, result);
  }

  private async record(row: ClaimedRow, attemptedAt: Date, r: AttemptResult): Promise<void> {
    const now = this.now();
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO webhook_attempts (endpoint_id, event_id, organization_id, attempted_at, outcome, status_code, latency_ms, error, response_excerpt)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          row.endpoint_id,
          row.event_id,
          row.organization_id,
          attemptedAt,
          r.outcome,
          r.statusCode,
          r.latencyMs,
          r.error,
          r.responseExcerpt?.slice(0, EXCERPT_CHARS) ?? null,
        ],
      );
      if (r.outcome === 'delivered') {
        await tx.query(
          `UPDATE webhook_deliveries SET status = 'delivered', delivered_at = $3, claimed_until = NULL WHERE endpoint_id = $1 AND event_id = $2`,
          [row.endpoint_id, row.event_id, now],
        );
        await tx.query('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL', [row.endpoint_id]);
        return;
      }
      const firstFailedAt = row.first_failed_at ?? attemptedAt;
      const decision = nextAttempt(row.attempts, firstFailedAt, now, this.opts.random);
      if ('giveUp' in decision) deliveriesAbandoned.inc();
      await tx.query(
        `UPDATE webhook_deliveries SET first_failed_at = $3, claimed_until = NULL,
            status = CASE WHEN $4::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
            next_attempt_at = coalesce($4, next_attempt_at)
          WHERE endpoint_id = $1 AND event_id = $2`,
        [row.endpoint_id, row.event_id, firstFailedAt, 'retryAt' in decision ? decision.retryAt : null],
      );
      // The endpoint's failure run: disabled once it has lasted the whole retry window.
      const reason = `disabled after failing for 3 days (since %s); last attempt: ${r.error ?? r.outcome}`;
      await tx.query(
        `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $2),
            enabled = CASE WHEN $3::timestamptz - coalesce(failing_since, $2) >= make_interval(secs => $4) THEN false ELSE enabled END,
            disabled_reason = CASE WHEN $3::timestamptz - coalesce(failing_since, $2) >= make_interval(secs => $4)
                                   THEN replace($5, '%s', to_char(coalesce(failing_since, $2) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
                                   ELSE disabled_reason END,
            updated_at = now()
          WHERE id = $1`,
        [row.endpoint_id, attemptedAt, now, RETRY_WINDOW_MS / 1000, reason],
      );
    });
    if (r.outcome !== 'delivered')
      this.logger.debug(
        { endpointId: row.endpoint_id, eventId: row.event_id, outcome: r.outcome, error: r.error },
        'webhook attempt failed',
      );
  }

  private async stats(): Promise<{ pending: number; oldestPendingSeconds: number }> {
    const [row] = await this.db.query<{ pending: string; oldest: Date | null }>(
      `SELECT count(*) AS pending, min(created_at) AS oldest FROM webhook_deliveries WHERE status = 'pending'`,
    );
    const oldest = row?.oldest ? (this.now().getTime() - row.oldest.getTime()) / 1000 : 0;
    return { pending: Number(row?.pending ?? 0), oldestPendingSeconds: Math.max(0, oldest) };
  }
}
