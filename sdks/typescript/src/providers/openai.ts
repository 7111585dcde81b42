// wrapOpenAI: the same OpenAI client, recording one usage event per chat completion and Responses
// API call (streaming included, and the chat.completions.stream() / responses.stream() helpers,
// observed through their events) through marginal.track. A chat stream only reports usage when
// stream_options.include_usage is set, so when the caller of create() did not set it the wrapper
// asks for it and keeps the extra usage-only chunk out of the caller's stream (the caller sees the
// chunks it would have seen). The chat helper hands every chunk to its caller, so there nothing is
// added: it is recorded when the caller asked for usage. Token classes: usage-mapping.ts.
import type { Marginal } from '../client.js';
import { CapturedCall, captureGuard, interceptProperties, type WrapOptions } from './capture.js';
import {
  fromOpenAIChatCompletion,
  fromOpenAIResponse,
  openAIChatStreamCollector,
  openAIResponsesStreamCollector,
  type StreamUsageCollector,
} from './usage-mapping.js';

type Method = (body: Record<string, unknown>, ...rest: unknown[]) => unknown;
// biome-ignore lint/suspicious/noExplicitAny: a listener of any event's arguments, as Node's EventEmitter types it
type Emitter = { on(event: string, listener: (...args: any[]) => void): unknown };
/** Starts the capture of one call. */
type Begin = () => CapturedCall;

/** Returns `client` with chat.completions.create/stream and responses.create/stream captured. */
export function wrapOpenAI<T extends object>(client: T, marginal: Marginal, options: WrapOptions = {}): T {
  const guard = captureGuard(options);
  const begin: Begin = () => new CapturedCall(marginal, options, guard);
  return interceptProperties(client, {
    chat: (chat) =>
      interceptProperties(chat as object, {
        completions: (c) =>
          interceptProperties(c as object, {
            create: (f) => chatCreate((f as Method).bind(c), begin),
            stream: (f) => streamHelper((f as Method).bind(c), begin, 'chunk', openAIChatStreamCollector),
          }),
      }),
    responses: (r) =>
      interceptProperties(r as object, {
        create: (f) => responsesCreate((f as Method).bind(r), begin),
        stream: (f) => streamHelper((f as Method).bind(r), begin, 'event', openAIResponsesStreamCollector),
      }),
  });
}

function chatCreate(original: Method, begin: Begin): Method {
  return (body, ...rest) => {
    const call = begin();
    let sent = body;
    let injected = false;
    call.guard(() => {
      const streamOptions = body?.stream_options as Record<string, unknown> | undefined;
      if (body?.stream === true && streamOptions?.include_usage === undefined) {
        sent = { ...body, stream_options: { ...streamOptions, include_usage: true } };
        injected = true;
      }
    });
    const result = original(sent, ...rest);
    call.observe(result, (value) => {
      if (sent?.stream !== true) return call.record(fromOpenAIChatCompletion(value));
      // The usage-only chunk (no choices) exists only because we asked for it.
      call.tapStream(value, openAIChatStreamCollector(), injected ? isUsageOnlyChunk : undefined);
    });
    return result;
  };
}

function responsesCreate(original: Method, begin: Begin): Method {
  return (body, ...rest) => {
    const call = begin();
    const result = original(body, ...rest);
    call.observe(result, (value) => {
      if (body?.stream === true) call.tapStream(value, openAIResponsesStreamCollector());
      else call.record(fromOpenAIResponse(value));
    });
    return result;
  };
}

/** A stream helper (ChatCompletionStream, ResponseStream): each `itemEvent` feeds the collector; 'end' records. */
function streamHelper(original: Method, begin: Begin, itemEvent: string, collector: () => StreamUsageCollector): Method {
  return (body, ...rest) => {
    const call = begin();
    const stream = original(body, ...rest) as Emitter;
    call.guard(() => {
      const usage = collector();
      stream.on(itemEvent, (item) => call.guard(() => usage.observe(item)));
      stream.on('end', () => call.guard(() => call.record(usage.usage())));
    });
    return stream;
  };
}

function isUsageOnlyChunk(chunk: unknown): boolean {
  const c = chunk as { choices?: unknown[]; usage?: unknown } | null;
  return Array.isArray(c?.choices) && c.choices.length === 0 && c.usage !== null && c.usage !== undefined;
}
