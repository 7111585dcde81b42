// Group commit (docs/design.md "Ingest") as a three-stage pipeline, each stage running one operation
// at a time over everything that queued up for it while the previous one ran:
//   reserve — ONE control-plane transaction: one ledger row per key + ONE group row holding all
//             their records + credits + new end users;
//   publish — ONE Kafka send (acks=all, idempotent producer) of every reserved event;
//   mark    — ONE update marking the published groups (and so all their rows) published: as
//             part of the next reservation's group insert when one starts (no transaction of its
//             own on a busy ingest), else on its own once the reserve stage is idle.
// So a busy ingest makes few, large transactions and sends, and the database and Kafka work
// overlap. An event's promise settles only once its fate is durable: 202 after Kafka acknowledged
// it, 402 after its reservation was rolled back, 503 after it was released (credit refunded).
// Within one process a key is handled by one request at a time, until its group is marked
// published: concurrent requests for it wait for that one's outcome, so concurrent retries spend
// one credit and publish one record. The sweeper leaves the groups in flight here alone.
// No request can fail another: a reservation transaction the control plane refuses is split down
// to the member it refuses (reserveIsolating), and a 503 deletes only the end users it created.
import type { ControlDb, Queryable } from '../core/control/db.js';
import { spendAvailableCredits, spendCredits } from '../core/control/credits.js';
import { fireCreditAlerts } from '../alerts/credits/credit-alerts.js';
import { createEndUsers, deleteEndUsers } from '../core/control/end-users.js';
import { isConnectionFailure } from '../core/control/sql-errors.js';
import {
  beginIngestGroup,
  discardReservations,
  IngestGroupIds,
  markGroupsPublished,
  releaseReservations,
  reserveAndSpend,
  writeIngestGroup,
  type IngestGroup,
} from './ingest-ledger.store.js';
import { InsufficientCreditsError, ServiceUnavailableError, type AppError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { EventPublisher } from './event-publisher.js';
import { groupSize, publishDuration } from './ingest-metrics.js';
import { compareCodePoints } from '../core/compare.js';

/** One event ready to queue: validated, flagged, encoded. */
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
  /** Most events in one reservation transaction. */
  maxGroupEvents: number;
  /**
   * How long a reserved event waits for Kafka's acknowledgement before its request is answered
   * 503 (a stalled broker must not hold clients for kafkajs's 30 s request timeout). The
   * reservation stays until the send settles: acknowledged, it is marked published (a retry then
   * answers 202 with the same event_id, charged once); failed, it is released and refunded.
   */
  publishTimeoutMs?: number;
  /** Test hook: runs after the reservation committed, before the publish (crash tests). */
  beforePublish?: () => Promise<void>;
}

export const DEFAULT_GROUP_COMMIT: GroupCommitOptions = { maxGroupEvents: 2000, publishTimeoutMs: 3_000 };

/** End users known to exist, per process; bounded so a flood of ids cannot grow it forever. */
const KNOWN_END_USERS_MAX = 200_000;

interface Entry {
  event: PendingEvent;
  key: string;
  /** Answers the request. */
  settle(outcome: EventOutcome): void;
}

/** An entry whose reservation committed and whose record now goes to Kafka. */
interface Reserved {
  entry: Entry;
  value: Buffer;
  /** Inserted by this process (released on a failed publish), or found reserved by another. */
  isNew: boolean;
  eventId: string;
  flagReason: string | null;
  /** The ingest group whose row now holds it (written by the same transaction). */
  groupId: string;
  /** Answers 503 if Kafka has not acknowledged by then (cleared when the send settles). */
  deadline?: NodeJS.Timeout;
}

/** What one organization's share of a reservation transaction produced. */
interface OrganizationReservation {
  /** Committed reservations whose records go to Kafka. */
  reserved: Reserved[];
  /** Entries answered without publishing: duplicates of published keys, 402s. */
  answered: Array<[Entry, EventOutcome]>;
  /** [organization, external id, created by this transaction] of the end users it upserted. */
  newUsers: Array<[string, string, boolean]>;
}

function keyOf(organizationId: string, idempotencyKey: string): string {
  return `${organizationId}\u0000${idempotencyKey}`;
}

function unavailable(what: string): ServiceUnavailableError {
  return new ServiceUnavailableError(`${what}. Retry with the same idempotency_key: it is never counted or charged twice.`);
}

function groupBy<T>(items: T[], by: (t: T) => string): Array<[string, T[]]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = by(it);
    const list = m.get(k);
    if (list) list.push(it);
    else m.set(k, [it]);
  }
  // Keys (organizations, groups) in one order, so concurrent transactions lock in one order.
  return [...m.entries()].sort(([a], [b]) => compareCodePoints(a, b));
}

export class GroupCommitter {
  /** Keys being handled, until their group is marked published or their request failed. */
  private readonly inFlight = new Map<string, Promise<EventOutcome>>();
  /** Groups reserved here and not yet marked or released: not stranded, whatever their age. */
  private readonly groupsInFlight = new Set<string>();
  private readonly toReserve: Entry[] = [];
  private readonly toPublish: Reserved[] = [];
  private readonly toMark: Reserved[] = [];
  private readonly busy = { reserve: false, publish: false, mark: false };
  private scheduled = false;
  private closed = false;
  private idle: Array<() => void> = [];
  private readonly knownEndUsers = new Set<string>();
  private readonly groupIds = new IngestGroupIds();
  /**
   * End users created here whose events are not yet queued, and how many reserved events of this
   * process name each user: a failed publish deletes the users that no accepted event named (a
   * 503 leaves no end user behind), unless another event of ours still may.
   */
  private readonly unconfirmedUsers = new Set<string>();
  private readonly userRefs = new Map<string, number>();

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

  /** Ids of the groups this process reserved and has not yet marked or released (the sweeper skips them). */
  inFlightGroups(): string[] {
    return [...this.groupsInFlight];
  }

  /** Stops taking events and waits until every queued one is settled and marked. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.isIdle()) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private isIdle(): boolean {
    return (
      this.toReserve.length + this.toPublish.length + this.toMark.length === 0 &&
      !this.busy.reserve &&
      !this.busy.publish &&
      !this.busy.mark
    );
  }

  private submitOne(event: PendingEvent): Promise<EventOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, error: unavailable('Ingest is shutting down') });
    const key = keyOf(event.organizationId, event.idempotencyKey);
    const leader = this.inFlight.get(key);
    if (leader) return leader.then((o) => (o.ok ? { ...o, duplicate: true } : o));
    let settle!: (o: EventOutcome) => void;
    const p = new Promise<EventOutcome>((resolve) => (settle = resolve));
    this.inFlight.set(key, p);
    this.toReserve.push({ event, key, settle });
    if (!this.scheduled) {
      this.scheduled = true;
      // setImmediate lets every request already parsed in this turn join the group.
      setImmediate(() => {
        this.scheduled = false;
        this.pump();
      });
    }
    return p;
  }

  /** Answers a request whose key is done with (failed, or already published). */
  private finish(entry: Entry, outcome: EventOutcome): void {
    this.inFlight.delete(entry.key);
    entry.settle(outcome);
  }

  /** Starts every idle stage that has work. */
  private pump(): void {
    if (!this.busy.reserve && this.toReserve.length > 0) {
      // The reservation marks what is waiting to be marked (in its group insert).
      const marks = this.toMark.splice(0);
      this.run('reserve', () => this.reserve(this.toReserve.splice(0, this.opts.maxGroupEvents), marks));
    }
    // All of it: a group's events go to Kafka in one send, so its one mark (or release) covers them all.
    if (!this.busy.publish && this.toPublish.length > 0) this.run('publish', () => this.publish(this.toPublish.splice(0)));
    // On its own only when no reservation runs: a running one is followed by another (which takes
    // the marks) or by this check again when it ends.
    if (!this.busy.mark && !this.busy.reserve && this.toMark.length > 0) this.run('mark', () => this.mark(this.toMark.splice(0)));
    if (this.isIdle()) for (const resolve of this.idle.splice(0)) resolve();
  }

  private run(stage: keyof GroupCommitter['busy'], op: () => Promise<void>): void {
    this.busy[stage] = true;
    op()
      .catch((err) => this.logger.error({ err, stage }, 'group commit stage failed unexpectedly'))
      .finally(() => {
        this.busy[stage] = false;
        this.pump();
      });
  }

  // ---- stage 1: one transaction reserves the group's keys and spends their credits ----------

  /** Reserves `group`; `marks` (acknowledged by Kafka) are marked published in the same transaction. */
  private async reserve(group: Entry[], marks: Reserved[]): Promise<void> {
    groupSize.observe(group.length);
    await this.reserveIsolating(group, marks);
  }

  /**
   * Reserves `group` in one transaction; when the control plane refuses it, the group is split in
   * halves and each half tried on its own, down to the single member that is refused, so no one
   * request can fail the others in its group whatever the cause (one bad member among n costs
   * about 2·log2(n) extra transactions). Only an unreachable control plane fails a group whole.
   * `marks` go with the first try only: when it rolls back they are marked on their own.
   */
  private async reserveIsolating(group: Entry[], marks: Reserved[] = []): Promise<void> {
    let outcome: OrganizationReservation & { groupId: string | null };
    try {
      outcome = await this.reserveInOneTransaction(group, marks);
    } catch (err) {
      // The marks rolled back with it. Marked at once on their own, not behind this group's
      // splitting (another process's sweeper would meanwhile take their groups for stranded);
      // with the control plane unreachable they wait in the mark stage's queue.
      if (marks.length > 0) {
        if (isConnectionFailure(err)) this.toMark.push(...marks);
        else await this.mark(marks);
      }
      // An unreachable control plane would fail every half the same way: no splitting then.
      if (group.length > 1 && !isConnectionFailure(err)) {
        const half = Math.ceil(group.length / 2);
        await this.reserveIsolating(group.slice(0, half));
        await this.reserveIsolating(group.slice(half));
        return;
      }
      this.logger.error({ err, events: group.length }, 'ingest reservation failed');
      for (const e of group) this.finish(e, { ok: false, error: unavailable('The control plane is unavailable') });
      return;
    }
    this.marked(marks);
    if (outcome.groupId !== null) this.groupsInFlight.add(outcome.groupId);
    this.rememberEndUsers(outcome.newUsers);
    for (const [org, u, created] of outcome.newUsers) if (created) this.unconfirmedUsers.add(keyOf(org, u));
    for (const r of outcome.reserved) this.refUser(r, 1);
    for (const [e, o] of outcome.answered) this.finish(e, o);
    this.answerUnavailableAfterDeadline(outcome.reserved);
    this.toPublish.push(...outcome.reserved);
  }

  private reserveInOneTransaction(group: Entry[], marks: Reserved[]): Promise<OrganizationReservation & { groupId: string | null }> {
    return this.db.transaction(async (tx) => {
      const ingestGroup = await beginIngestGroup(tx, this.groupIds);
      const all: OrganizationReservation = { reserved: [], answered: [], newUsers: [] };
      for (const [org, entries] of groupBy(group, (e) => e.event.organizationId)) {
        const one = await this.reserveForOrganization(tx, ingestGroup, org, entries);
        all.reserved.push(...one.reserved);
        all.answered.push(...one.answered);
        all.newUsers.push(...one.newUsers);
      }
      // Written when some row references it (all duplicates or all unpaid: nothing to hold).
      const written = await writeIngestGroup(
        tx,
        ingestGroup,
        marks.map((r) => r.groupId),
      );
      return { ...all, groupId: written ? ingestGroup.id : null };
    });
  }

  /**
   * Settles these events' requests with 503 once publishTimeoutMs passed without Kafka's
   * acknowledgement. Their keys stay in flight (a retry meanwhile gets the same 503) until the
   * send settles, so the outcome stays one of: published once and charged once, or released.
   */
  private answerUnavailableAfterDeadline(reserved: Reserved[]): void {
    const ms = this.opts.publishTimeoutMs;
    if (!ms || reserved.length === 0) return;
    const deadline = setTimeout(() => {
      const error = unavailable(`Kafka did not acknowledge the event within ${ms} ms; it may still be queued`);
      for (const r of reserved) r.entry.settle({ ok: false, error });
    }, ms);
    deadline.unref();
    for (const r of reserved) r.deadline = deadline;
  }

  /** One organization's part of a reservation transaction: what to publish, what is answered now, which end users are new. */
  private async reserveForOrganization(tx: Queryable, group: IngestGroup, org: string, entries: Entry[]): Promise<OrganizationReservation> {
    const reserved: Reserved[] = [];
    const answered: Array<[Entry, EventOutcome]> = [];
    const newUsers: OrganizationReservation['newUsers'] = [];
    // One credit per new key, spent by the insert itself when every key is new.
    const { reservations, spend } = await reserveAndSpend(
      tx,
      group,
      org,
      entries.map((e) => ({
        idempotencyKey: e.event.idempotencyKey,
        eventId: e.event.eventId,
        payload: e.event.payload,
        flagReason: e.event.flagReason,
      })),
      true,
    );
    const fresh = entries.filter((_, i) => reservations[i]!.isNew);
    let paid = fresh.length;
    if (fresh.length > 0) {
      let { ok, balance } = spend ?? (await spendCredits(tx, org, fresh.length));
      if (!ok) {
        // Fewer credits than new keys: the first `paid` in arrival order go, the rest answer 402.
        ({ spent: paid, balance } = await spendAvailableCredits(tx, org, fresh.length));
        await discardReservations(
          tx,
          group,
          org,
          fresh.slice(paid).map((e) => e.event.idempotencyKey),
        );
      }
      // credits.low / credits.exhausted, in this transaction (alerts/credits).
      await fireCreditAlerts(tx, org, balance);
    }
    fresh.forEach((e, i) => {
      if (i < paid) {
        reserved.push({
          entry: e,
          value: e.event.payload,
          isNew: true,
          eventId: e.event.eventId,
          flagReason: e.event.flagReason,
          groupId: group.id,
        });
      } else {
        answered.push([e, { ok: false, error: new InsufficientCreditsError() }]);
      }
    });

    entries.forEach((e, i) => {
      const r = reservations[i]!;
      if (r.isNew) return;
      if (r.state === 'published' || r.payload === null) {
        answered.push([e, { ok: true, eventId: r.eventId, flagReason: r.flagReason, duplicate: true }]);
      } else {
        // Reserved by another process (or one that died), now moved into our group: publish its
        // stored record with ours; our mark covers it.
        reserved.push({ entry: e, value: r.payload, isNew: false, eventId: r.eventId, flagReason: r.flagReason, groupId: group.id });
      }
    });

    const users = new Set<string>();
    for (const e of fresh.slice(0, paid)) {
      const u = e.event.userId;
      if (u !== null && !this.knownEndUsers.has(keyOf(org, u))) users.add(u);
    }
    if (users.size > 0) {
      const created = new Set(await createEndUsers(tx, org, [...users]));
      for (const u of users) newUsers.push([org, u, created.has(u)]);
    }
    return { reserved, answered, newUsers };
  }

  /** Counts a reserved event's end user in (+1) or out (-1); returns the references left. */
  private refUser(r: Reserved, delta: 1 | -1): number {
    const u = r.entry.event.userId;
    if (u === null) return 0;
    const key = keyOf(r.entry.event.organizationId, u);
    const n = (this.userRefs.get(key) ?? 0) + delta;
    if (n > 0) this.userRefs.set(key, n);
    else this.userRefs.delete(key);
    return n;
  }

  private rememberEndUsers(users: OrganizationReservation['newUsers']): void {
    if (this.knownEndUsers.size + users.length > KNOWN_END_USERS_MAX) this.knownEndUsers.clear();
    for (const [org, u] of users) this.knownEndUsers.add(keyOf(org, u));
  }

  // ---- stage 2: one Kafka send for everything reserved since the last one ---------------------

  private async publish(batch: Reserved[]): Promise<void> {
    const endTimer = publishDuration.startTimer();
    try {
      if (this.opts.beforePublish) await this.opts.beforePublish();
      await this.publisher.publish(batch.map((r) => ({ key: r.entry.event.organizationId, value: r.value })));
      endTimer();
    } catch (err) {
      for (const r of batch) clearTimeout(r.deadline);
      this.logger.error({ err, events: batch.length }, 'Kafka publish failed; releasing the reservations');
      for (const [groupId, list] of groupBy(batch, (r) => r.groupId)) await this.release(groupId, list);
      for (const r of batch) this.finish(r.entry, { ok: false, error: unavailable('Kafka cannot take events right now') });
      return;
    }
    // Durable in Kafka: answer now; the key and its group stay in flight (retries answer from
    // memory and the sweeper keeps off the group) until the mark stage has recorded it.
    for (const r of batch) {
      clearTimeout(r.deadline);
      r.entry.settle({ ok: true, eventId: r.eventId, flagReason: r.flagReason, duplicate: !r.isNew });
      this.toMark.push(r);
      // An accepted event names its end user: that user stays.
      this.refUser(r, -1);
      if (r.entry.event.userId !== null) this.unconfirmedUsers.delete(keyOf(r.entry.event.organizationId, r.entry.event.userId));
    }
  }

  /**
   * The 503 path for one group: deletes the rows this process inserted and refunds their credits,
   * and the group row with them unless it also holds rows moved in from another group (those
   * stay reserved, as they were, for the sweeper). One transaction per group, so locks are taken
   * in the order reservations take them.
   */
  private async release(groupId: string, list: Reserved[]): Promise<void> {
    const mine = list
      .filter((r) => r.isNew)
      .map((r) => ({ organizationId: r.entry.event.organizationId, idempotencyKey: r.entry.event.idempotencyKey }));
    const orphans = this.orphanedUsers(list);
    try {
      await this.db.transaction(async (tx) => {
        await releaseReservations(tx, groupId, mine, { keepGroup: mine.length < list.length });
        for (const [org, users] of orphans) await deleteEndUsers(tx, org, users);
      });
    } catch (err) {
      // Left reserved, they keep their credit and the sweeper publishes them once Kafka is back;
      // a retry of the key then answers 202.
      this.logger.error({ err, events: list.length }, 'releasing reservations failed; the sweeper will publish them');
    }
    this.groupsInFlight.delete(groupId);
  }

  /** End users created here that no accepted or still reserved event of ours names once `list` is released, by organization. */
  private orphanedUsers(list: Reserved[]): Array<[string, string[]]> {
    const orphans = new Map<string, Set<string>>();
    for (const r of list) {
      const u = r.entry.event.userId;
      if (u === null || this.refUser(r, -1) > 0) continue;
      const key = keyOf(r.entry.event.organizationId, u);
      if (!this.unconfirmedUsers.delete(key)) continue;
      this.knownEndUsers.delete(key);
      const set = orphans.get(r.entry.event.organizationId) ?? new Set<string>();
      orphans.set(r.entry.event.organizationId, set.add(u));
    }
    return [...orphans].map(([org, users]) => [org, [...users]]);
  }

  // ---- stage 3: one update marks every group published since the last one ---------------------

  private async mark(batch: Reserved[]): Promise<void> {
    const groupIds = [...new Set(batch.map((r) => r.groupId))];
    try {
      await markGroupsPublished(this.db, groupIds);
    } catch (err) {
      // The events are in Kafka; the groups stay unpublished and the sweeper re-publishes them
      // (the processor drops the repeat by event_id).
      this.logger.warn({ err, events: batch.length }, 'marking published failed; the sweeper will finish it');
    }
    this.marked(batch);
  }

  /** Marked (or left to the sweeper): their keys and groups are no longer in flight here. */
  private marked(batch: Reserved[]): void {
    for (const r of batch) {
      this.groupsInFlight.delete(r.groupId);
      this.inFlight.delete(r.entry.key);
    }
  }
}
