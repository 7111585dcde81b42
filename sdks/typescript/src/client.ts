// The Marginal client: `track` (queued, batched, retried in the background by batching.ts),
// `send` (one signed request, answered), `flush`/`shutdown`, and the typed read methods of
// reads.ts. Ingest requests are signed by signing.ts on every attempt, over the exact bytes sent.
import { randomUUID } from 'node:crypto';
import { EventBatcher, type BatcherStats } from './batching.js';
import { resolveConfig, type MarginalOptions, type ResolvedConfig } from './config.js';
import { MarginalConfigError, errorFromResponse } from './errors.js';
import type { EventResult, IngestResponse, QueuedEvent, UsageEvent } from './events.js';
import { createReadMethods, type ReadMethods } from './reads.js';
import { requestWithRetry, type HttpAnswer } from './retry.js';
import { signatureHeaders } from './signing.js';

export interface Marginal extends ReadMethods {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface of the same name adds the generated read methods, which the constructor installs
export class Marginal {
  readonly config: ResolvedConfig;
  private readonly batcher: EventBatcher;
  private exitHook: (() => void) | null = null;

  constructor(options: MarginalOptions = {}) {
    this.config = resolveConfig(options);
    this.batcher = new EventBatcher(
      this.config,
      (events) => this.postSigned('/usage-events/batch', { events }),
      reporterOf(this.config.onResult),
    );
    Object.assign(this, createReadMethods(this.config));
    if (this.config.flushOnExit) {
      // beforeExit fires when the event loop is empty; flushing schedules the requests, which keep
      // the process alive until they are answered. process.exit() skips it: call shutdown().
      this.exitHook = () => {
        const { queued, inFlight } = this.batcher.stats();
        if (queued + inFlight > 0) void this.batcher.flush();
      };
      process.on('beforeExit', this.exitHook);
    }
  }

  /**
   * Queues an event and returns its idempotency key at once (generated when the event has none),
   * or null when the event was dropped (queue full or client shut down; onResult says which).
   * The event's timestamp is set to now when absent. Its outcome goes to `onResult`.
   */
  track(event: UsageEvent): string | null {
    this.requireSecret();
    const queued = {
      ...event,
      idempotency_key: event.idempotency_key ?? randomUUID(),
      timestamp: event.timestamp ?? new Date().toISOString(),
    } as QueuedEvent;
    return this.batcher.enqueue(queued) ? queued.idempotency_key : null;
  }

  /**
   * Whether the end user (the external `user_id` sent on events) may spend now: false when a
   * budget covering them (the organization's, theirs, or each end user's) is exhausted in its
   * current period. One GET /budgets/check (key with costs:read), answered from the service's
   * running spend; call it before a model call to enforce budgets.
   */
  async budgetAllows(userId: string): Promise<boolean> {
    return (await this.budgetCheck({ user_id: userId })).allowed;
  }

  /**
   * Sends one event now and returns the ingest response (status accepted or accepted_flagged).
   * Retries like track; throws the typed error otherwise (402: InsufficientCreditsError).
   */
  async send(event: UsageEvent): Promise<IngestResponse> {
    this.requireSecret();
    const body = { ...event, idempotency_key: event.idempotency_key ?? randomUUID() };
    const answer = await this.postSigned('/usage-events', body);
    if (answer.status !== 202) throw errorFromResponse(answer.status, answer.body, answer.headers);
    return answer.body as IngestResponse;
  }

  /** Resolves when every event tracked so far has its outcome. */
  flush(): Promise<void> {
    return this.batcher.flush();
  }

  /** Flushes, then refuses further events (they are reported as dropped) and removes the exit hook. */
  async shutdown(): Promise<void> {
    if (this.exitHook) process.off('beforeExit', this.exitHook);
    this.exitHook = null;
    await this.batcher.close();
  }

  /** Queue depth and outcome counts so far. */
  stats(): BatcherStats {
    return this.batcher.stats();
  }

  private requireSecret(): string {
    if (!this.config.signingSecret) {
      throw new MarginalConfigError('signingSecret is required to send events (option signingSecret or MARGINAL_SIGNING_SECRET)');
    }
    return this.config.signingSecret;
  }

  /** POST with retries; each attempt signs the same bytes with a fresh X-Timestamp. */
  private postSigned(path: string, payload: unknown): Promise<HttpAnswer> {
    const secret = this.requireSecret();
    const body = JSON.stringify(payload);
    const url = `${this.config.apiUrl}${path}`;
    return requestWithRetry(
      (signal) =>
        this.config.fetch(url, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${this.config.apiKey}`,
            'Content-Type': 'application/json',
            ...signatureHeaders(secret, body),
          },
          body,
          signal,
        }),
      this.config.retry,
      { timeoutMs: this.config.timeoutMs },
    );
  }
}

/**
 * Where outcomes go: the caller's onResult; without one, the first event that is not accepted
 * (of each status) raises a process warning, so drops and refusals are never silent.
 */
function reporterOf(onResult: ((result: EventResult) => void) | null): (result: EventResult) => void {
  if (onResult) return onResult;
  const warned = new Set<string>();
  return (result) => {
    if (!(result.status === 'dropped' || result.status === 'rejected' || result.status === 'failed') || warned.has(result.status)) return;
    warned.add(result.status);
    const why = result.status === 'dropped' ? result.reason : result.error.message;
    process.emitWarning(
      `Marginal: event ${result.status} (${why}); pass onResult to see every outcome, stats() for counts`,
      'MarginalWarning',
    );
  };
}
