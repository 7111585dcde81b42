// wrapAnthropic: the same Anthropic client, recording one usage event per messages.create call
// (stream: true included) and per messages.stream() helper stream, through marginal.track.
// Token classes: usage-mapping.ts.
import type { Marginal } from '../client.js';
import { CapturedCall, captureGuard, interceptProperties, type WrapOptions } from './capture.js';
import { anthropicStreamCollector, fromAnthropicMessage } from './usage-mapping.js';

type Method = (body: Record<string, unknown>, ...rest: unknown[]) => unknown;
type Begin = () => CapturedCall;

/** Returns `client` with messages.create and messages.stream captured. */
export function wrapAnthropic<T extends object>(client: T, marginal: Marginal, options: WrapOptions = {}): T {
  const guard = captureGuard(options);
  const begin: Begin = () => new CapturedCall(marginal, options, guard);
  return interceptProperties(client, {
    messages: (m) =>
      interceptProperties(m as object, {
        create: (f) => messagesCreate((f as Method).bind(m), begin),
        stream: (f) => messagesStream((f as Method).bind(m), begin),
      }),
  });
}

function messagesCreate(original: Method, begin: Begin): Method {
  return (body, ...rest) => {
    const call = begin();
    const result = original(body, ...rest);
    call.observe(result, (value) => {
      if (body?.stream === true) call.tapStream(value, anthropicStreamCollector());
      else call.record(fromAnthropicMessage(value));
    });
    return result;
  };
}

/**
 * The helper stream calls the unwrapped create; its 'finalMessage' event carries the accumulated
 * message (usage from message_start and message_delta), recorded once.
 */
function messagesStream(original: Method, begin: Begin): Method {
  return (body, ...rest) => {
    const call = begin();
    const helper = original(body, ...rest) as { on?: (event: string, listener: (message: unknown) => void) => unknown };
    call.guard(() => {
      helper.on?.('finalMessage', (message) => call.guard(() => call.record(fromAnthropicMessage(message))));
    });
    return helper;
  };
}
