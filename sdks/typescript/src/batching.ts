// The background sender behind `track`: a bounded queue of events, sent as batches when a batch
// is full or the oldest event has waited flushIntervalMs, at most maxConcurrentRequests at once.
// Invariants: every enqueued event gets exactly one outcome (accepted, flagged, rejected, failed or
// dropped); an event keeps its idempotency_key across every resend, so the service counts it once
// however often it is sent; `flush()` resolves only when nothing is queued, in flight or waiting
// to be resent. HTTP-level retries are retry.ts's; per-event retryable errors inside a 200 batch
// answer (SERVICE_UNAVAILABLE) are requeued here with the same backoff.
import { type MarginalApiError, MarginalError, apiErrorOf, errorFromResponse, isRecord } from './errors.js';
import type { EventResult, QueuedEvent } from './events.js';
import { backoffDelayMs, isRetryableStatus, type HttpAnswer, type RetryPolicy } from './retry.js';

export interface BatcherConfig {
  maxQueueSize: number;
  batchSize: number;
  flushIntervalMs: number;
  maxConcurrentRequests: number;
  retry: RetryPolicy;
}

/** POSTs one batch (HTTP retries included); throws MarginalError when no answer came. */
export type BatchTransport = (events: readonly QueuedEvent[]) => Promise<HttpAnswer>;

/** Counts of outcomes so far, and what is waiting. */
export interface BatcherStats {
  queued: number;
  inFlight: number;
  accepted: number;
  flagged: number;
  rejected: number;
  failed: number;
  dropped: number;
}

export class EventBatcher {
  private queue: QueuedEvent[] = [];
  private inFlightEvents = 0;
  private requests = 0;
  /** Events waiting out a backoff before being requeued. */
  private resending = 0;
  /** Send whatever is queued, full batch or not (timer fired or flush asked). */
  private draining = false;
  private pumpScheduled = false;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private idleWaiters: Array<() => void> = [];
  private readonly retries = new Map<string, number>();
  private readonly counts = { accepted: 0, flagged: 0, rejected: 0, failed: 0, dropped: 0 };

  constructor(
    private readonly config: BatcherConfig,
    private readonly transport: BatchTransport,
    private readonly report: (result: EventResult) => void,
  ) {}

  /** Queues the event; false (and a `dropped` outcome) when the queue is full or closed. Never blocks. */
  enqueue(event: QueuedEvent): boolean {
    if (this.closed || this.queue.length >= this.config.maxQueueSize) {
      this.settle({ status: 'dropped', idempotencyKey: event.idempotency_key, reason: this.closed ? 'shutdown' : 'queue_full', event });
      return false;
    }
    this.queue.push(event);
    if (this.queue.length >= this.config.batchSize) this.schedulePump();
    else if (this.timer === null) this.startTimer();
    return true;
  }

  /** Resolves when everything enqueued so far has its outcome. */
  flush(): Promise<void> {
    this.draining = true;
    this.pump();
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Refuses new events, then flushes. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    this.stopTimer();
  }

  stats(): BatcherStats {
    return { queued: this.queue.length + this.resending, inFlight: this.inFlightEvents, ...this.counts };
  }

  private isIdle(): boolean {
    return this.queue.length === 0 && this.inFlightEvents === 0 && this.resending === 0;
  }

  private startTimer(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      this.draining = true;
      this.pump();
    }, this.config.flushIntervalMs);
    // A waiting batch alone does not keep the process alive; the beforeExit hook flushes it.
    this.timer.unref();
  }

  private stopTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Deferred so that the track() call that fills a batch does not pay for serializing it. */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.requests < this.config.maxConcurrentRequests && this.queue.length > 0) {
      if (!this.draining && this.queue.length < this.config.batchSize) break;
      const batch = this.queue.splice(0, this.config.batchSize);
      this.requests++;
      this.inFlightEvents += batch.length;
      void this.send(batch).finally(() => {
        this.requests--;
        this.inFlightEvents -= batch.length;
        this.pump();
        this.checkIdle();
      });
    }
    if (this.queue.length === 0) {
      this.draining = false;
      this.stopTimer();
    } else if (this.timer === null && !this.draining) {
      this.startTimer();
    }
  }

  private checkIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private async send(batch: QueuedEvent[]): Promise<void> {
    let answer: HttpAnswer;
    try {
      answer = await this.transport(batch);
    } catch (err) {
      const error = err instanceof MarginalError ? err : new MarginalError(String(err));
      for (const event of batch) this.settle({ status: 'failed', idempotencyKey: event.idempotency_key, error, event });
      return;
    }
    const results = answer.status === 200 && isRecord(answer.body) && Array.isArray(answer.body.results) ? answer.body.results : null;
    if (!results) {
      const error = errorFromResponse(answer.status, answer.body, answer.headers);
      const status = isRetryableStatus(answer.status) ? 'failed' : 'rejected';
      for (const event of batch) this.settle({ status, idempotencyKey: event.idempotency_key, error, event } as EventResult);
      return;
    }
    const resend: QueuedEvent[] = [];
    batch.forEach((event, i) => {
      const outcome = this.outcomeOf(event, results[i]);
      if (outcome === 'resend') resend.push(event);
      else this.settle(outcome);
    });
    if (resend.length > 0) this.resendLater(resend);
  }

  /** One entry of a batch answer: the ingest response, or {error} for that event. */
  private outcomeOf(event: QueuedEvent, entry: unknown): EventResult | 'resend' {
    const idempotencyKey = event.idempotency_key;
    if (isRecord(entry) && typeof entry.event_id === 'string') {
      const flagged = entry.status === 'accepted_flagged';
      return {
        status: flagged ? 'accepted_flagged' : 'accepted',
        idempotencyKey,
        eventId: entry.event_id,
        ...(typeof entry.flag_reason === 'string' ? { flagReason: entry.flag_reason } : {}),
        event,
      };
    }
    const e = isRecord(entry) && isRecord(entry.error) ? entry.error : {};
    const error = apiErrorOf({
      status: 0,
      code: typeof e.code === 'string' ? e.code : 'MISSING_RESULT',
      message: typeof e.message === 'string' ? e.message : 'the batch answer has no result for this event',
      details: isRecord(e.details) ? e.details : undefined,
    });
    if (isEventRetryable(error)) {
      const tries = (this.retries.get(idempotencyKey) ?? 0) + 1;
      if (tries <= this.config.retry.maxRetries) {
        this.retries.set(idempotencyKey, tries);
        return 'resend';
      }
      return { status: 'failed', idempotencyKey, error, event };
    }
    return { status: 'rejected', idempotencyKey, error, event };
  }

  private resendLater(events: QueuedEvent[]): void {
    this.resending += events.length;
    const tries = Math.max(...events.map((e) => this.retries.get(e.idempotency_key) ?? 1));
    setTimeout(
      () => {
        this.resending -= events.length;
        // Ahead of newer events, and past the queue bound: these were admitted already.
        this.queue.unshift(...events);
        this.draining = true;
        this.pump();
      },
      backoffDelayMs(tries - 1, this.config.retry),
    );
  }

  private settle(result: EventResult): void {
    this.retries.delete(result.idempotencyKey);
    if (result.status === 'accepted') this.counts.accepted++;
    else if (result.status === 'accepted_flagged') this.counts.flagged++;
    else this.counts[result.status]++;
    try {
      this.report(result);
    } catch {
      // A throwing onResult must not stop delivery of the other events.
    }
  }
}

/** A per-event error the service says may succeed later (the queue was unavailable). */
function isEventRetryable(error: MarginalApiError): boolean {
  return error.details.retryable === true || error.code === 'SERVICE_UNAVAILABLE';
}
