// Group commit (DESIGN.md "Ingest"): events of concurrent requests are collected into ONE
// control-plane transaction (reserve ledger rows + spend credits + create end users) and ONE
// Kafka publish, then marked published. An event's promise settles only after its fate is durable:
// 202 after Kafka acknowledged it, 402 after the rollback of its reservation, 503 after its
// reservation was released (credit refunded). Within one process a key is handled by one
// request at a time; concurrent requests for it wait for that one's outcome, so concurrent
// retries spend one credit and publish one record.
import type { ControlDb } from '../core/control/db.js';
import { spendAvailableCredits } from '../core/control/credits.js';
import { upsertEndUsers } from '../core/control/end-users.js';
import {
  discardReservations,
  getLedgerDetails,
  markPublished,
  releaseReservations,
  reserveEvents,
  type LedgerKey,
} from '../core/control/ingest-ledger.js';
import { InsufficientCreditsError, ServiceUnavailableError, type AppError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { EventPublisher, PublishRecord } from './event-publisher.js';
import { groupSize, publishDuration } from './ingest-metrics.js';

/** One event ready to queue: validated, priced for flags, encoded. */
export interface PendingEvent {
  organizationId: string;
  idempotencyKey: string;
  eventId: string;
  /** The Avro record (Confluent framing) as it will be published. */
  payload: Buffer;
  flagReason: string | null;
  /** External end-user id, created on first sight. */
  userId: string | null;
}

export type EventOutcome =
  | {
      ok: true;
      eventId: string;
      flagReason: string | null;
      /** The key was accepted before: nothing was charged or queued again. */
      duplicate: boolean;
    }
  | { ok: false; error: AppError };

export interface GroupCommitOptions {
  /** Most events in one transaction and publish. */
  maxGroupEvents: number;
  /** Groups in progress at once: one can be in the database while another is in Kafka. */
  maxConcurrentGroups: number;
  /** Test hook: runs after the reservation committed, before the publish (crash tests). */
  beforePublish?: () => Promise<void>;
}

export const DEFAULT_GROUP_COMMIT: GroupCommitOptions = { maxGroupEvents: 1000, maxConcurrentGroups: 2 };

interface Entry {
  event: PendingEvent;
  settle(outcome: EventOutcome): void;
}

/** How the transaction left each entry. */
type Plan =
  | { kind: 'new' }
  | { kind: 'no_credit' }
  | { kind: 'published'; eventId: string; flagReason: string | null }
  /** Reserved by another process (or one that died): its stored payload is published with the group. */
  | { kind: 'reserved_elsewhere'; eventId: string; flagReason: string | null; payload: Buffer };

function keyOf(organizationId: string, idempotencyKey: string): string {
  return `${organizationId}\u0000${idempotencyKey}`;
}

function unavailable(what: string): ServiceUnavailableError {
  return new ServiceUnavailableError(`${what}. Retry with the same idempotency_key: it is never counted or charged twice.`);
}

export class GroupCommitter {
  private readonly queue: Entry[] = [];
  private readonly inFlight = new Map<string, Promise<EventOutcome>>();
  private running = 0;
  private scheduled = false;
  private closed = false;
  private idle: Array<() => void> = [];

  constructor(
    private readonly db: ControlDb,
    private readonly publisher: EventPublisher,
    private readonly logger: Logger,
    private readonly opts: GroupCommitOptions = DEFAULT_GROUP_COMMIT,
  ) {}

  /** Queues events; one outcome per event, in order. */
  submit(events: PendingEvent[]): Promise<EventOutcome[]> {
    return Promise.all(events.map((e) => this.submitOne(e)));
  }

  /** True while a request of this process is handling the key (the sweeper leaves it alone). */
  isInFlight(organizationId: string, idempotencyKey: string): boolean {
    return this.inFlight.has(keyOf(organizationId, idempotencyKey));
  }

  /** Stops taking events and waits for the queued ones to settle. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.queue.length === 0 && this.running === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private submitOne(event: PendingEvent): Promise<EventOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, error: unavailable('Ingest is shutting down') });
    const k = keyOf(event.organizationId, event.idempotencyKey);
    const leader = this.inFlight.get(k);
    if (leader) return leader.then((o) => (o.ok ? { ...o, duplicate: true } : o));
    let settle!: (o: EventOutcome) => void;
    const p = new Promise<EventOutcome>((resolve) => (settle = resolve));
    this.inFlight.set(k, p);
    this.queue.push({
      event,
      settle: (o) => {
        this.inFlight.delete(k);
        settle(o);
      },
    });
    this.schedule();
    return p;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate lets every request already parsed in this turn join the group.
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  private drain(): void {
    while (this.queue.length > 0 && this.running < this.opts.maxConcurrentGroups) {
      const group = this.queue.splice(0, this.opts.maxGroupEvents);
      this.running++;
      groupSize.observe(group.length);
      this.commit(group)
        .catch((err) => {
          // commit settles every entry itself; this is a bug guard so no request hangs.
          this.logger.error({ err }, 'group commit failed unexpectedly');
          for (const e of group) e.settle({ ok: false, error: unavailable('Ingest failed') });
        })
        .finally(() => {
          this.running--;
          if (this.queue.length > 0) this.schedule();
          else if (this.running === 0) for (const resolve of this.idle.splice(0)) resolve();
        });
    }
  }

  private async commit(group: Entry[]): Promise<void> {
    const byOrg = new Map<string, Entry[]>();
    for (const e of group) {
      const list = byOrg.get(e.event.organizationId);
      if (list) list.push(e);
      else byOrg.set(e.event.organizationId, [e]);
    }
    // Organizations in one order, so concurrent groups (other replicas) lock in one order.
    const orgs = [...byOrg.keys()].sort();

    let plans: Map<Entry, Plan>;
    try {
      plans = await this.db.transaction(async (tx) => {
        const out = new Map<Entry, Plan>();
        for (const org of orgs) {
          const entries = byOrg.get(org)!;
          const reservations = await reserveEvents(
            tx,
            org,
            entries.map((e) => ({
              idempotencyKey: e.event.idempotencyKey,
              eventId: e.event.eventId,
              payload: e.event.payload,
              flagReason: e.event.flagReason,
            })),
          );
          const fresh = entries.filter((_, i) => reservations[i]!.isNew);
          let paid = fresh.length;
          if (fresh.length > 0) {
            paid = (await spendAvailableCredits(tx, org, fresh.length)).spent;
            // Fewer credits than new keys: the first `paid` in arrival order go, the rest answer 402.
            if (paid < fresh.length) await discardReservations(tx, org, fresh.slice(paid).map((e) => e.event.idempotencyKey));
          }
          fresh.forEach((e, i) => out.set(e, i < paid ? { kind: 'new' } : { kind: 'no_credit' }));

          const known = entries.filter((_, i) => !reservations[i]!.isNew);
          if (known.length > 0) {
            const details = await getLedgerDetails(tx, org, known.map((e) => e.event.idempotencyKey));
            for (const e of known) {
              const d = details.get(e.event.idempotencyKey);
              if (!d) throw new Error('ledger row vanished during reservation');
              out.set(
                e,
                d.state === 'published' || d.payload === null
                  ? { kind: 'published', eventId: d.eventId, flagReason: d.flagReason }
                  : { kind: 'reserved_elsewhere', eventId: d.eventId, flagReason: d.flagReason, payload: d.payload },
              );
            }
          }

          const users = fresh.slice(0, paid).flatMap((e) => (e.event.userId === null ? [] : [e.event.userId]));
          if (users.length > 0) await upsertEndUsers(tx, org, users);
        }
        return out;
      });
    } catch (err) {
      this.logger.error({ err, events: group.length }, 'ingest reservation failed');
      for (const e of group) e.settle({ ok: false, error: unavailable('The control plane is unavailable') });
      return;
    }

    const toPublish: Entry[] = [];
    const records: PublishRecord[] = [];
    for (const e of group) {
      const plan = plans.get(e)!;
      switch (plan.kind) {
        case 'no_credit':
          e.settle({ ok: false, error: new InsufficientCreditsError() });
          break;
        case 'published':
          e.settle({ ok: true, eventId: plan.eventId, flagReason: plan.flagReason, duplicate: true });
          break;
        case 'new':
          toPublish.push(e);
          records.push({ key: e.event.organizationId, value: e.event.payload });
          break;
        case 'reserved_elsewhere':
          toPublish.push(e);
          records.push({ key: e.event.organizationId, value: plan.payload });
          break;
      }
    }
    if (toPublish.length === 0) return;

    const endTimer = publishDuration.startTimer();
    try {
      if (this.opts.beforePublish) await this.opts.beforePublish();
      await this.publisher.publish(records);
      endTimer();
    } catch (err) {
      this.logger.error({ err, events: records.length }, 'Kafka publish failed; releasing the reservations');
      await this.release(toPublish.filter((e) => plans.get(e)!.kind === 'new'));
      for (const e of toPublish) e.settle({ ok: false, error: unavailable('Kafka cannot take events right now') });
      return;
    }

    const keys: LedgerKey[] = toPublish.map((e) => ({ organizationId: e.event.organizationId, idempotencyKey: e.event.idempotencyKey }));
    try {
      await markPublished(this.db, keys);
    } catch (err) {
      // The events are in Kafka; the rows stay `reserved` and the sweeper re-publishes them
      // (the processor drops the repeat by event_id). The 202 stands.
      this.logger.warn({ err, events: keys.length }, 'marking published failed; the sweeper will finish it');
    }
    for (const e of toPublish) {
      const plan = plans.get(e)!;
      e.settle(
        plan.kind === 'reserved_elsewhere'
          ? { ok: true, eventId: plan.eventId, flagReason: plan.flagReason, duplicate: true }
          : { ok: true, eventId: e.event.eventId, flagReason: e.event.flagReason, duplicate: false },
      );
    }
  }

  /** Deletes the unpublished reservations and refunds their credits (the 503 path). */
  private async release(entries: Entry[]): Promise<void> {
    if (entries.length === 0) return;
    const byOrg = new Map<string, string[]>();
    for (const e of entries) {
      const keys = byOrg.get(e.event.organizationId) ?? [];
      keys.push(e.event.idempotencyKey);
      byOrg.set(e.event.organizationId, keys);
    }
    try {
      await this.db.transaction(async (tx) => {
        for (const org of [...byOrg.keys()].sort()) await releaseReservations(tx, org, byOrg.get(org)!);
      });
    } catch (err) {
      // Left reserved, they keep their credit and the sweeper publishes them once Kafka is back;
      // a retry of the key then answers 202.
      this.logger.error({ err, events: entries.length }, 'releasing reservations failed; the sweeper will publish them');
    }
  }
}
