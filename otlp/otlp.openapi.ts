// POST /otlp/v1/traces in the OpenAPI document. The route is a plain express route (it speaks
// OTLP/HTTP: protobuf bodies, google.rpc.Status errors), which tsoa cannot describe, so
// scripts/tsoa-generate.ts merges this operation into what tsoa generates (`npm run tsoa`, and
// `--check` compares the merged result). It lives at the origin, not under the document's `/v1`
// server, hence the path-level `servers`. The wire format is the OTLP specification's; the JSON
// schemas below state the OTLP/JSON shape this receiver reads (unknown fields are ignored, as
// OTLP requires of receivers).

import { OTLP_TRACES_PATH } from './otlp-receiver.js';

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const HEX = (bytes: number) => ({ type: 'string', pattern: `^[0-9a-fA-F]{${bytes * 2}}$` });
/** int64/uint64 in OTLP/JSON: a decimal string or a JSON number. */
const INT64 = { oneOf: [{ type: 'string', pattern: '^-?[0-9]{1,19}$' }, { type: 'integer' }] };
const BINARY = (what: string) => ({ type: 'string', format: 'binary', description: what });

const SCHEMAS: Record<string, Json> = {
  OtlpAnyValue: {
    type: 'object',
    description: 'opentelemetry.proto.common.v1.AnyValue: at most one of the fields.',
    properties: {
      stringValue: { type: 'string' },
      boolValue: { type: 'boolean' },
      intValue: INT64,
      doubleValue: { type: 'number' },
      arrayValue: { type: 'object', properties: { values: { type: 'array', items: ref('OtlpAnyValue') } } },
      kvlistValue: { type: 'object', properties: { values: { type: 'array', items: ref('OtlpKeyValue') } } },
      bytesValue: { type: 'string', format: 'byte' },
    },
  },
  OtlpKeyValue: { type: 'object', required: ['key'], properties: { key: { type: 'string' }, value: ref('OtlpAnyValue') } },
  OtlpSpan: {
    type: 'object',
    description:
      'opentelemetry.proto.trace.v1.Span in OTLP/JSON: ids as hex. Spans with GenAI usage become usage events, others structural spans of the session tree (README, "Sending OpenTelemetry traces").',
    required: ['traceId', 'spanId'],
    properties: {
      traceId: HEX(16),
      spanId: HEX(8),
      parentSpanId: { type: 'string', pattern: '^([0-9a-fA-F]{16})?$' },
      traceState: { type: 'string' },
      flags: { type: 'integer', minimum: 0, maximum: 4294967295 },
      name: { type: 'string' },
      kind: { type: 'integer', minimum: 0, maximum: 5 },
      startTimeUnixNano: INT64,
      endTimeUnixNano: INT64,
      attributes: { type: 'array', items: ref('OtlpKeyValue') },
      droppedAttributesCount: { type: 'integer', minimum: 0, maximum: 4294967295 },
    },
  },
  OtlpExportTraceServiceRequest: {
    type: 'object',
    description: 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest in OTLP/JSON.',
    properties: {
      resourceSpans: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            resource: { type: 'object', properties: { attributes: { type: 'array', items: ref('OtlpKeyValue') } } },
            scopeSpans: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  scope: { type: 'object', properties: { name: { type: 'string' }, version: { type: 'string' } } },
                  spans: { type: 'array', items: ref('OtlpSpan') },
                  schemaUrl: { type: 'string' },
                },
              },
            },
            schemaUrl: { type: 'string' },
          },
        },
      },
    },
  },
  OtlpExportTraceServiceResponse: {
    type: 'object',
    description: 'ExportTraceServiceResponse in OTLP/JSON: empty when every span was accepted.',
    additionalProperties: false,
    properties: {
      partialSuccess: {
        type: 'object',
        additionalProperties: false,
        required: ['rejectedSpans', 'errorMessage'],
        properties: {
          rejectedSpans: { type: 'string', pattern: '^[0-9]+$', description: 'int64 as a decimal string (proto3 JSON).' },
          errorMessage: { type: 'string', description: 'How many spans were rejected, and the first few with their reasons.' },
        },
      },
    },
  },
};

const ERROR_STATUSES: Array<[number, string]> = [
  [400, 'VALIDATION_ERROR: the body is not an ExportTraceServiceRequest in the encoding sent (the message says where)'],
  [401, 'UNAUTHORIZED: missing or invalid API key'],
  [403, 'FORBIDDEN: the API key lacks usage:write'],
  [413, 'PAYLOAD_TOO_LARGE: the body (inflated) exceeds 20 MB'],
  [415, 'UNSUPPORTED_MEDIA_TYPE: neither application/x-protobuf nor application/json'],
  [429, 'RATE_LIMIT_EXCEEDED: the ingest rate limit (each export counts once); retry after Retry-After seconds'],
  [
    503,
    'SERVICE_UNAVAILABLE: the queue or the control plane cannot take the spans; nothing was charged; retry after Retry-After seconds (every span is idempotent)',
  ],
];

const RETRY_AFTER = {
  'Retry-After': { required: true, description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
};

function errorResponse(status: number, description: string): Json {
  return {
    description: `${description}. Protobuf requests get a google.rpc.Status; JSON requests its JSON form (code, message) with the error envelope.`,
    ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
    content: {
      'application/x-protobuf': { schema: BINARY('google.rpc.Status') },
      'application/json': { schema: ref('OtlpErrorBody') },
    },
  };
}

const OPERATION: Json = {
  operationId: 'ExportTraces',
  tags: ['OpenTelemetry'],
  summary: 'OTLP/HTTP traces receiver',
  description: [
    'Takes an OTLP export (OTEL_EXPORTER_OTLP_ENDPOINT=<origin>/otlp; the exporter appends /v1/traces) with an API key',
    'holding usage:write and no signature. Each span with GenAI usage becomes one usage event through the path of',
    'POST /v1/usage-events (validation, one credit, idempotency key otlp:<trace id>:<span id>); spans without usage are',
    'kept for the session call tree. Answers in the encoding of the request; a body may be gzip-compressed',
    '(Content-Encoding: gzip). Spans refused one by one (mapping, validation, no credits left) are a 200 with',
    'partial_success; a 200 means every accepted span is durable.',
  ].join('\n'),
  security: [{ api_key: ['usage:write'] }],
  requestBody: {
    required: true,
    content: {
      'application/x-protobuf': { schema: BINARY('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest (binary protobuf)') },
      'application/json': { schema: ref('OtlpExportTraceServiceRequest') },
    },
  },
  responses: {
    200: {
      description: 'Accepted: every span is durable, or partial_success counts and explains the rejected ones',
      content: {
        'application/x-protobuf': { schema: BINARY('ExportTraceServiceResponse') },
        'application/json': { schema: ref('OtlpExportTraceServiceResponse') },
      },
    },
    ...Object.fromEntries(ERROR_STATUSES.map(([status, description]) => [status, errorResponse(status, description)])),
  },
};

/** The document tsoa generated, with the OTLP operation and its schemas added (a new object). */
export function withOtlpOperation(doc: Json): Json {
  const components = (doc.components ?? {}) as { schemas?: Record<string, Json> };
  const envelope = components.schemas?.ErrorEnvelope as { properties: Json; required: string[] } | undefined;
  if (!envelope) throw new Error('the generated document has no ErrorEnvelope schema');
  // google.rpc.Status's JSON form (code, message) merged with the envelope: no key collides.
  const errorBody = {
    ...envelope,
    properties: { code: { type: 'integer', description: 'google.rpc.Code' }, message: { type: 'string' }, ...envelope.properties },
  };
  return {
    ...doc,
    components: { ...components, schemas: { ...components.schemas, ...SCHEMAS, OtlpErrorBody: errorBody } },
    paths: {
      ...(doc.paths as Json),
      [OTLP_TRACES_PATH]: {
        servers: [{ url: '/', description: 'At the origin, outside /v1 (OTLP/HTTP)' }],
        post: OPERATION,
      },
    },
  };
}
