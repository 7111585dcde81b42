import { describe, expect, it } from 'vitest';
import { EventBatcher, type BatchTransport } from '../../src/batching.js';
import type { EventResult, QueuedEvent } from '../../src/events.js';
import type { HttpAnswer } from '../../src/retry.js';

const retry = { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 };
const event = (i: number): QueuedEvent => ({ idempotency_key: `k${i}`, model: 'gpt-4o', input_tokens: i, output_tokens: 1 });
const ok = (body: unknown): HttpAnswer => ({ status: 200, headers: new Headers(), text: JSON.stringify(body), body });
const accepted = (events: readonly QueuedEvent[]) =>
  ok({ results: events.map((e) => ({ event_id: `id-${e.idempotency_key}`, status: 'accepted' })) });

function harness(
  config: Partial<ConstructorParameters<typeof EventBatcher>[0]>,
  answer: (events: readonly QueuedEvent[], call: number) => HttpAnswer | Promise<HttpAnswer>,
) {
  const batches: string[][] = [];
  const results: EventResult[] = [];
  const transport: BatchTransport = async (events) => {
    batches.push(events.map((e) => e.idempotency_key));
    return answer(events, batches.length);
  };
  const batcher = new EventBatcher(
    { maxQueueSize: 10_000, batchSize: 500, flushIntervalMs: 1000, maxConcurrentRequests: 2, retry, ...config },
    transport,
    (r) => results.push(r),
  );
  return { batcher, batches, results };
}

describe('EventBatcher', () => {
  it('sends full batches without waiting, and the rest on flush', async () => {
    const h = harness({ batchSize: 100, flushIntervalMs: 60_000 }, accepted);
    for (let i = 0; i < 250; i++) h.batcher.enqueue(event(i));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(h.batches.map((b) => b.length)).toEqual([100, 100]);
    await h.batcher.flush();
    expect(h.batches.map((b) => b.length)).toEqual([100, 100, 50]);
    expect(h.results.filter((r) => r.status === 'accepted')).toHaveLength(250);
    expect(new Set(h.results.map((r) => r.idempotencyKey)).size).toBe(250);
  });

  it('sends a partial batch once its oldest event has waited flushIntervalMs', async () => {
    const h = harness({ flushIntervalMs: 50 }, accepted);
    h.batcher.enqueue(event(1));
    h.batcher.enqueue(event(2));
    await new Promise((r) => setTimeout(r, 20));
    expect(h.batches).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 80));
    expect(h.batches).toEqual([['k1', 'k2']]);
  });

  it('bounds the queue and reports what it dropped', async () => {
    const h = harness({ maxQueueSize: 3, batchSize: 10, flushIntervalMs: 60_000 }, accepted);
    const queued = [1, 2, 3, 4, 5].map((i) => h.batcher.enqueue(event(i)));
    expect(queued).toEqual([true, true, true, false, false]);
    expect(h.results).toMatchObject([
      { status: 'dropped', reason: 'queue_full', idempotencyKey: 'k4' },
      { status: 'dropped', reason: 'queue_full', idempotencyKey: 'k5' },
    ]);
    await h.batcher.close();
    expect(h.batcher.enqueue(event(6))).toBe(false);
    expect(h.results.at(-1)).toMatchObject({ status: 'dropped', reason: 'shutdown' });
    expect(h.batcher.stats()).toMatchObject({ accepted: 3, dropped: 3, queued: 0, inFlight: 0 });
  });

  it('per-event results: flagged, rejected with the field, credits error, and a resend of SERVICE_UNAVAILABLE with the same key', async () => {
    const h = harness({ batchSize: 10, flushIntervalMs: 60_000 }, (events, call) =>
      call === 1
        ? ok({
            results: [
              { event_id: 'e1', status: 'accepted_flagged', flag_reason: 'no rate card for model "x"' },
              { error: { code: 'VALIDATION_ERROR', message: 'input_tokens must be an integer', details: { field: 'input_tokens' } } },
              { error: { code: 'INSUFFICIENT_CREDITS', message: 'no credits', details: { actionHint: 'BUY_CREDITS' } } },
              { error: { code: 'SERVICE_UNAVAILABLE', message: 'queue down', details: { retryable: true } } },
            ],
          })
        : accepted(events),
    );
    for (let i = 1; i <= 4; i++) h.batcher.enqueue(event(i));
    await h.batcher.flush();
    expect(h.batches).toEqual([['k1', 'k2', 'k3', 'k4'], ['k4']]);
    const byKey = Object.fromEntries(h.results.map((r) => [r.idempotencyKey, r]));
    expect(byKey.k1).toMatchObject({ status: 'accepted_flagged', eventId: 'e1', flagReason: 'no rate card for model "x"' });
    expect(byKey.k2).toMatchObject({ status: 'rejected', error: { code: 'VALIDATION_ERROR', field: 'input_tokens' } });
    expect(byKey.k3).toMatchObject({ status: 'rejected', error: { name: 'InsufficientCreditsError', actionHint: 'BUY_CREDITS' } });
    expect(byKey.k4).toMatchObject({ status: 'accepted', eventId: 'id-k4' });
  });

  it('a refused request rejects its events; a request without an answer fails them', async () => {
    const h = harness({ batchSize: 2, flushIntervalMs: 60_000 }, (_events, call) => {
      if (call === 1)
        return {
          status: 403,
          headers: new Headers(),
          text: '',
          body: { success: false, error: { code: 'FORBIDDEN', message: 'scope', correlationId: 'c-1' } },
        };
      throw new Error('socket hang up');
    });
    for (let i = 1; i <= 4; i++) h.batcher.enqueue(event(i));
    await h.batcher.flush();
    expect(h.results.map((r) => [r.idempotencyKey, r.status])).toEqual([
      ['k1', 'rejected'],
      ['k2', 'rejected'],
      ['k3', 'failed'],
      ['k4', 'failed'],
    ]);
    expect(h.results[0]).toMatchObject({ error: { name: 'PermissionDeniedError', code: 'FORBIDDEN', correlationId: 'c-1', status: 403 } });
  });

  it('flush waits for requests in flight', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const h = harness({ batchSize: 10 }, async (events) => {
      await gate;
      return accepted(events);
    });
    h.batcher.enqueue(event(1));
    let done = false;
    const flushed = h.batcher.flush().then(() => (done = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    release();
    await flushed;
    expect(h.results).toHaveLength(1);
  });
});
