// wrapOpenAI: the same OpenAI client, recording one usage event per chat completion and Responses
// API call (streaming included, and the chat.completions.stream() / responses.stream() helpers,
// observed through their events) through marginal.track. Streams: a chat stream only reports usage
// when stream_options.include_usage is set, so when the caller did not set it the wrapper asks for
// it and keeps the extra usage-only chunk out of the caller's stream (the caller sees the chunks
// it would have seen). Token classes: usage-mapping.ts.
import type { Marginal } from '../client.js';
import { CapturedCall, captureGuard, interceptProperties, type WrapOptions } from './capture.js';
import {
  fromOpenAIChatCompletion,
  fromOpenAIResponse,
  openAIChatStreamCollector,
  openAIResponsesStreamCollector,
} from './usage-mapping.js';

type Create = (body: Record<string, unknown>, ...rest: unknown[]) => unknown;
type Emitter = { on(event: string, listener: (...args: any[]) => void): unknown };

/** Returns `client` with chat.completions.create and responses.create captured. */
export function wrapOpenAI<T extends object>(client: T, marginal: Marginal, options: WrapOptions = {}): T {
  const guard = captureGuard(options);
  const chatCreate = (original: unknown) =>
    function create(this: unknown, body: Record<string, unknown>, ...rest: unknown[]) {
      const call = new CapturedCall(marginal, options, guard);
      let sent = body;
      let injected = false;
      guard(() => {
        const streamOptions = body?.stream_options as Record<string, unknown> | undefined;
        if (body?.stream === true && streamOptions?.include_usage === undefined) {
          sent = { ...body, stream_options: { ...streamOptions, include_usage: true } };
          injected = true;
        }
      });
      const result = (original as Create)(sent, ...rest);
      call.observe(result, (value) => {
        if (sent?.stream === true) {
          // The usage-only chunk (no choices) exists only because we asked for it.
          const hide = injected ? (chunk: unknown) => isUsageOnlyChunk(chunk) : undefined;
          call.tapStream(value, openAIChatStreamCollector(), hide);
        } else {
          call.record(fromOpenAIChatCompletion(value));
        }
      });
      return result;
    };
  const responsesCreate = (original: unknown) =>
    function create(this: unknown, body: Record<string, unknown>, ...rest: unknown[]) {
      const call = new CapturedCall(marginal, options, guard);
      const result = (original as Create)(body, ...rest);
      call.observe(result, (value) => {
        if (body?.stream === true) call.tapStream(value, openAIResponsesStreamCollector());
        else call.record(fromOpenAIResponse(value));
      });
      return result;
    };
  // The stream helpers call the unwrapped client; they are observed through their own events. The
  // chat helper passes every chunk on to its caller, so include_usage is not added there: it is
  // recorded when the caller asked for usage.
  const helper = (original: unknown, observe: (stream: Emitter, call: CapturedCall) => void) =>
    function stream(this: unknown, body: Record<string, unknown>, ...rest: unknown[]) {
      const call = new CapturedCall(marginal, options, guard);
      const result = (original as Create)(body, ...rest) as Emitter;
      guard(() => observe(result, call));
      return result;
    };
  const chatHelper = (original: unknown) =>
    helper(original, (stream, call) => {
      const collector = openAIChatStreamCollector();
      stream.on('chunk', (chunk) => call.guard(() => collector.observe(chunk)));
      stream.on('end', () => call.guard(() => call.record(collector.usage())));
    });
  const responsesHelper = (original: unknown) =>
    helper(original, (stream, call) => {
      const collector = openAIResponsesStreamCollector();
      stream.on('event', (event) => call.guard(() => collector.observe(event)));
      stream.on('end', () => call.guard(() => call.record(collector.usage())));
    });
  return interceptProperties(client, {
    chat: (chat) =>
      interceptProperties(chat as object, {
        completions: (c) =>
          interceptProperties(c as object, {
            create: (f) => chatCreate((f as Create).bind(c)),
            stream: (f) => chatHelper((f as Create).bind(c)),
          }),
      }),
    responses: (r) =>
      interceptProperties(r as object, {
        create: (f) => responsesCreate((f as Create).bind(r)),
        stream: (f) => responsesHelper((f as Create).bind(r)),
      }),
  });
}

function isUsageOnlyChunk(chunk: unknown): boolean {
  const c = chunk as { choices?: unknown[]; usage?: unknown } | null;
  return Array.isArray(c?.choices) && c.choices.length === 0 && c.usage !== null && c.usage !== undefined;
}
