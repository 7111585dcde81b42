// What the provider wrappers share: a proxy that replaces chosen methods and leaves everything
// else as it was (bound to the real object), the tap that observes a provider stream as the
// caller consumes it, and the recording of one usage event per call. Invariant: capture never
// changes what the caller gets or throws — every capture step runs inside a guard that reports
// its failure to onCaptureError and carries on.
import { currentContext, eventFieldsOf, mergeContexts, type CaptureContext } from '../context.js';
import type { Marginal } from '../client.js';
import type { ProviderUsage, StreamUsageCollector } from './usage-mapping.js';

export interface WrapOptions extends CaptureContext {
  /** Called when capturing a call failed (the model call itself is unaffected). Default: a process warning, once. */
  onCaptureError?: (error: unknown) => void;
}

type AnyFunction = (...args: unknown[]) => unknown;

/**
 * A view of `target` whose listed properties are replaced (methods by wrappers, objects by
 * nested views); other functions are bound to the real object, so private state keeps working.
 */
export function interceptProperties<T extends object>(target: T, replacements: Record<string, (original: unknown) => unknown>): T {
  const cache = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj);
      if (typeof prop === 'string' && Object.hasOwn(replacements, prop) && value !== undefined && value !== null) {
        if (!cache.has(prop)) cache.set(prop, replacements[prop]!(value));
        return cache.get(prop);
      }
      return typeof value === 'function' && prop !== 'constructor' ? (value as AnyFunction).bind(obj) : value;
    },
  });
}

let warned = false;

export function captureGuard(options: WrapOptions): (step: () => void) => void {
  const onError =
    options.onCaptureError ??
    ((err: unknown) => {
      if (warned) return;
      warned = true;
      process.emitWarning(
        `Marginal could not capture a model call: ${err instanceof Error ? err.message : String(err)}`,
        'MarginalCaptureWarning',
      );
    });
  return (step) => {
    try {
      step();
    } catch (err) {
      try {
        onError(err);
      } catch {
        // nothing more to do
      }
    }
  };
}

/** One call being captured: the context at call time, its start, and how to record it. */
export class CapturedCall {
  private readonly context: CaptureContext;
  private readonly startedAt = new Date();
  private recorded = false;

  constructor(
    private readonly marginal: Marginal,
    defaults: WrapOptions,
    readonly guard: (step: () => void) => void,
  ) {
    const { onCaptureError: _ignored, ...fields } = defaults;
    this.context = mergeContexts(fields, currentContext());
  }

  /** Tracks one event for the call (once); a call without usage records nothing. */
  record(usage: ProviderUsage | null): void {
    if (this.recorded || usage === null) return;
    this.recorded = true;
    this.marginal.track({
      ...eventFieldsOf(this.context),
      ...usage,
      started_at: this.startedAt.toISOString(),
      timestamp: new Date().toISOString(),
    });
  }

  /**
   * Observes a call's result without changing it: for a promise (the provider's APIPromise is
   * returned to the caller as is), `onValue` runs with the resolved value before the caller's own
   * continuation does, since handlers run in the order they were attached.
   */
  observe(result: unknown, onValue: (value: unknown) => void): void {
    this.guard(() => {
      if (result !== null && typeof result === 'object' && typeof (result as PromiseLike<unknown>).then === 'function') {
        (result as PromiseLike<unknown>).then(
          (value) => this.guard(() => onValue(value)),
          () => undefined, // the caller sees the error through its own handlers
        );
      }
    });
  }

  /**
   * Taps a provider stream (openai and @anthropic-ai/sdk `Stream`: its `iterator` property makes
   * every async iterator, `tee()` and `toReadableStream()` included): each item goes to the
   * collector as the caller reads it, and the call is recorded when the stream ends or the
   * caller stops reading. `hide` items are consumed but not passed on.
   */
  tapStream(stream: unknown, collector: StreamUsageCollector, hide?: (item: unknown) => boolean): void {
    const s = stream as { iterator?: (...args: unknown[]) => AsyncIterator<unknown> };
    if (typeof s?.iterator !== 'function') throw new Error('unrecognized stream object: no iterator()');
    const original = s.iterator;
    const call = this;
    s.iterator = function tapped(this: unknown, ...args: unknown[]) {
      const source = original.apply(this, args);
      return (async function* () {
        try {
          for (let next = await source.next(); !next.done; next = await source.next()) {
            const item = next.value;
            call.guard(() => collector.observe(item));
            let hidden = false;
            call.guard(() => {
              hidden = hide?.(item) ?? false;
            });
            if (!hidden) yield item;
          }
        } finally {
          call.guard(() => call.record(collector.usage()));
          await source.return?.();
        }
      })();
    };
  }
}
