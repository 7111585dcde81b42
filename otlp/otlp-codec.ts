// OTLP/HTTP trace payloads in and answers out, through protobufjs over the official
// opentelemetry-proto definitions vendored in otlp/proto (v1.11.0, Apache-2.0). Both encodings of
// the OTLP spec decode to one plain shape (OtlpSpan): binary protobuf as is; JSON after turning
// its hex trace/span ids into bytes (the one place OTLP/JSON departs from protobuf's JSON
// mapping), so field names, enums, int64 as string or number and AnyValue are read by the same
// generated reflection. Nothing here knows about usage events (span-mapping.ts does).
import path from 'node:path';
import protobuf from 'protobufjs';
import { fromRoot } from '../core/paths.js';

const PROTO_DIR = fromRoot('otlp', 'proto');

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  // Imports are written from the proto root ("opentelemetry/proto/common/v1/common.proto").
  root.resolvePath = (_origin, target) => path.join(PROTO_DIR, target);
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: false });
  // google.rpc.Status, the body of OTLP/HTTP error answers; `details` (Any) is never filled here.
  root.add(
    new protobuf.Namespace('google').add(
      new protobuf.Namespace('rpc').add(
        new protobuf.Type('Status').add(new protobuf.Field('code', 1, 'int32')).add(new protobuf.Field('message', 2, 'string')),
      ),
    ),
  );
  root.resolveAll();
  return root;
}

const root = loadRoot();
const ExportRequest = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
const ExportResponse = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');
const Status = root.lookupType('google.rpc.Status');

export type OtlpEncoding = 'protobuf' | 'json';

/** An attribute value as OTLP carries it (AnyValue), flattened to JSON-like data. */
export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };
export type Attributes = Record<string, AttributeValue>;

/** One span with its resource's attributes, ids as lowercase hex, times as Unix milliseconds (nanoseconds past the millisecond dropped). */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  /** Null for a root span (absent or all-zero bytes). */
  parentSpanId: string | null;
  name: string;
  startTimeUnixMs: number;
  endTimeUnixMs: number;
  attributes: Attributes;
  resourceAttributes: Attributes;
}

/** The payload could not be read as an ExportTraceServiceRequest; the message says why. */
export class OtlpDecodeError extends Error {}

/** Decodes an export request body of the given encoding into its spans, in order. */
export function decodeExportRequest(body: Buffer, encoding: OtlpEncoding): OtlpSpan[] {
  let message: DecodedRequest;
  try {
    message = (encoding === 'protobuf'
      ? ExportRequest.decode(body)
      : ExportRequest.fromObject(jsonRequestObject(body) as Record<string, unknown>)) as unknown as DecodedRequest;
  } catch (err) {
    if (err instanceof OtlpDecodeError) throw err;
    throw new OtlpDecodeError(
      `not an ExportTraceServiceRequest in ${encoding === 'protobuf' ? 'binary protobuf' : 'OTLP/JSON'}: ${(err as Error).message}`,
    );
  }
  // The decoded message is read in place (no toObject copy): about half the decoding time.
  const spans: OtlpSpan[] = [];
  for (const rs of message.resourceSpans ?? []) {
    const resourceAttributes = attributesOf(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) spans.push(spanOf(s, resourceAttributes));
    }
  }
  return spans;
}

/** The 200 body: empty on full success, else partial_success with the rejected count and why. */
export function encodeExportResponse(partial: { rejectedSpans: number; errorMessage: string } | null, encoding: OtlpEncoding): Buffer {
  const object = partial ? { partialSuccess: { rejectedSpans: partial.rejectedSpans, errorMessage: partial.errorMessage } } : {};
  if (encoding === 'json')
    return Buffer.from(JSON.stringify(ExportResponse.toObject(ExportResponse.fromObject(object), { longs: String })));
  return Buffer.from(ExportResponse.encode(ExportResponse.fromObject(object)).finish());
}

/** A google.rpc.Status for a 4xx/5xx answer to a protobuf request. */
export function encodeStatus(code: number, message: string): Buffer {
  return Buffer.from(Status.encode(Status.fromObject({ code, message })).finish());
}

/** int64 fields of a decoded message: a Long (protobufjs with `long`) or a number. */
type Int64 = { high: number; low: number; toNumber(): number } | number;

/**
 * Unix nanoseconds (fixed64) → whole Unix milliseconds, exactly, without a decimal string or a
 * BigInt per span: nanos = high·2^32 + low and 2^32 = 4294·10^6 + 967296, so
 * floor(nanos / 10^6) = high·4294 + floor((high·967296 + low) / 10^6), every term below 2^53.
 */
export function unixMillisOf(nanos: Int64 | undefined): number {
  if (nanos === undefined) return 0;
  if (typeof nanos === 'number') return Math.floor(nanos / 1e6);
  const high = nanos.high >>> 0;
  return high * 4294 + Math.floor((high * 967296 + (nanos.low >>> 0)) / 1e6);
}

/** AnyValue as protobufjs decodes it: `value` names the oneof field that is set. */
interface DecodedAnyValue {
  value?: 'stringValue' | 'boolValue' | 'intValue' | 'doubleValue' | 'arrayValue' | 'kvlistValue' | 'bytesValue';
  stringValue?: string;
  boolValue?: boolean;
  intValue?: Int64;
  doubleValue?: number;
  arrayValue?: { values?: DecodedAnyValue[] };
  kvlistValue?: { values?: DecodedKeyValue[] };
  bytesValue?: Uint8Array;
}
interface DecodedKeyValue {
  key?: string;
  value?: DecodedAnyValue | null;
}
interface DecodedSpan {
  traceId?: Uint8Array | number[];
  spanId?: Uint8Array | number[];
  parentSpanId?: Uint8Array | number[];
  name?: string;
  startTimeUnixNano?: Int64;
  endTimeUnixNano?: Int64;
  attributes?: DecodedKeyValue[];
}
interface DecodedRequest {
  resourceSpans?: Array<{ resource?: { attributes?: DecodedKeyValue[] } | null; scopeSpans?: Array<{ spans?: DecodedSpan[] }> }>;
}

function hexOf(bytes: Uint8Array | number[] | undefined): string {
  if (!bytes || bytes.length === 0) return '';
  return (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes)).toString('hex');
}

function spanOf(s: DecodedSpan, resourceAttributes: Attributes): OtlpSpan {
  const parent = hexOf(s.parentSpanId);
  return {
    traceId: hexOf(s.traceId),
    spanId: hexOf(s.spanId),
    parentSpanId: parent === '' || /^0+$/.test(parent) ? null : parent,
    name: s.name ?? '',
    startTimeUnixMs: unixMillisOf(s.startTimeUnixNano),
    endTimeUnixMs: unixMillisOf(s.endTimeUnixNano),
    attributes: attributesOf(s.attributes),
    resourceAttributes,
  };
}

function attributesOf(kvs: DecodedKeyValue[] | undefined): Attributes {
  const out: Attributes = {};
  for (const kv of kvs ?? []) if (kv.key !== undefined) out[kv.key] = attributeValueOf(kv.value ?? undefined);
  return out;
}

function attributeValueOf(v: DecodedAnyValue | undefined): AttributeValue {
  switch (v?.value) {
    case 'stringValue':
      return v.stringValue!;
    case 'boolValue':
      return v.boolValue!;
    case 'intValue': {
      // int64: exact as a number up to 2^53 (Long's toNumber, no decimal text); token counts beyond that are refused by the mapping anyway.
      const i = v.intValue!;
      return typeof i === 'number' ? i : i.toNumber();
    }
    case 'doubleValue':
      return v.doubleValue!;
    case 'arrayValue':
      return (v.arrayValue!.values ?? []).map((x) => attributeValueOf(x));
    case 'kvlistValue':
      return attributesOf(v.kvlistValue!.values);
    case 'bytesValue':
      return Buffer.from(v.bytesValue!).toString('base64');
    default:
      return null;
  }
}

const ID_FIELDS = ['traceId', 'spanId', 'parentSpanId'] as const;

/**
 * The JSON body as an object protobufjs's fromObject reads: OTLP/JSON writes trace and span ids
 * (of spans and of their links) as hex, not base64 (OTLP spec, "JSON Protobuf Encoding").
 */
function jsonRequestObject(body: Buffer): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new OtlpDecodeError('body: not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new OtlpDecodeError('body: must be a JSON object (ExportTraceServiceRequest)');
  const resourceSpans = (parsed as { resourceSpans?: unknown }).resourceSpans;
  if (resourceSpans === undefined) return parsed;
  if (!Array.isArray(resourceSpans)) throw new OtlpDecodeError('resourceSpans: must be an array');
  resourceSpans.forEach((rs, i) => {
    const scopeSpans = (rs as { scopeSpans?: unknown } | null)?.scopeSpans;
    if (!Array.isArray(scopeSpans)) return;
    scopeSpans.forEach((ss, j) => {
      const spans = (ss as { spans?: unknown } | null)?.spans;
      if (!Array.isArray(spans)) return;
      spans.forEach((span, k) => {
        const at = `resourceSpans[${i}].scopeSpans[${j}].spans[${k}]`;
        hexIdsToBytes(span, at);
        const links = (span as { links?: unknown } | null)?.links;
        if (Array.isArray(links)) {
          for (const [l, link] of links.entries()) hexIdsToBytes(link, `${at}.links[${l}]`);
        }
      });
    });
  });
  return parsed;
}

function hexIdsToBytes(holder: unknown, at: string): void {
  if (typeof holder !== 'object' || holder === null) return;
  const record = holder as Record<string, unknown>;
  for (const field of ID_FIELDS) {
    const value = record[field];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string' || !/^(?:[0-9a-fA-F]{2})+$/.test(value)) {
      throw new OtlpDecodeError(`${at}.${field}: must be a hex string (OTLP/JSON encodes ids as hex)`);
    }
    record[field] = Buffer.from(value, 'hex');
  }
}
