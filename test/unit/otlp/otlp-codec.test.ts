// OTLP decoding: the SDK's own serializers (protobuf and JSON) of the same spans decode to the
// same plain spans; OTLP/JSON's hex ids, int64 as string or number and every AnyValue kind; the
// answers encode as the OTLP messages.
import { context, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import protobuf from 'protobufjs';
import { decodeExportRequest, encodeExportResponse, OtlpDecodeError, unixMillisOf } from '../../../otlp/otlp-codec.js';

describe('decodeExportRequest', () => {
  it('protobuf and JSON of the same SDK spans decode alike, ids as hex, times in milliseconds', () => {
    const memory = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'svc' }),
      spanProcessors: [new SimpleSpanProcessor(memory)],
    }).getTracer('t');
    const parent = tracer.startSpan('agent', {
      startTime: 1_795_514_400_000,
      attributes: { s: 'x', i: 12, d: 1.25, b: true, arr: ['p', 'q'] },
    });
    tracer.startSpan('child', { startTime: 1_795_514_400_001 }, trace.setSpan(context.active(), parent)).end(1_795_514_400_002);
    parent.end(1_795_514_400_003);
    const spans = memory.getFinishedSpans();
    const fromProtobuf = decodeExportRequest(Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!), 'protobuf');
    const fromJson = decodeExportRequest(Buffer.from(JsonTraceSerializer.serializeRequest(spans)!), 'json');
    expect(fromJson).toEqual(fromProtobuf);
    const agent = fromProtobuf.find((s) => s.name === 'agent')!;
    const child = fromProtobuf.find((s) => s.name === 'child')!;
    expect(agent).toEqual({
      traceId: parent.spanContext().traceId,
      spanId: parent.spanContext().spanId,
      parentSpanId: null,
      name: 'agent',
      startTimeUnixMs: 1_795_514_400_000,
      endTimeUnixMs: 1_795_514_400_003,
      attributes: { s: 'x', i: 12, d: 1.25, b: true, arr: ['p', 'q'] },
      resourceAttributes: { 'service.name': 'svc' },
    });
    expect(child.parentSpanId).toBe(agent.spanId);
  });

  it('OTLP/JSON: hex ids, int64 as string or number, nested values, unknown fields ignored', () => {
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'r', value: { intValue: 5 } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '5B8EFFF798038103D269B633813FC60C',
                  spanId: 'eee19b7ec3c1b174',
                  parentSpanId: '',
                  name: 'n',
                  kind: 3,
                  somethingNew: true,
                  startTimeUnixNano: '1795514400000000000',
                  endTimeUnixNano: 1795514401000000000,
                  attributes: [
                    {
                      key: 'arr',
                      value: {
                        arrayValue: {
                          values: [{ doubleValue: 1.5 }, { kvlistValue: { values: [{ key: 'k', value: { stringValue: 'v' } }] } }],
                        },
                      },
                    },
                    { key: 'big', value: { intValue: '9007199254740991' } },
                    { key: 'none', value: {} },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const [span] = decodeExportRequest(Buffer.from(JSON.stringify(body)), 'json');
    expect(span).toEqual({
      traceId: '5b8efff798038103d269b633813fc60c',
      spanId: 'eee19b7ec3c1b174',
      parentSpanId: null,
      name: 'n',
      startTimeUnixMs: 1_795_514_400_000,
      endTimeUnixMs: 1_795_514_401_000,
      attributes: { arr: [1.5, { k: 'v' }], big: 9007199254740991, none: null },
      resourceAttributes: { r: 5 },
    });
  });

  it('faults name what is wrong', () => {
    expect(() => decodeExportRequest(Buffer.from('[1]'), 'json')).toThrow(
      new OtlpDecodeError('body: must be a JSON object (ExportTraceServiceRequest)'),
    );
    expect(() => decodeExportRequest(Buffer.from('{"resourceSpans":{}}'), 'json')).toThrow('resourceSpans: must be an array');
    expect(() => decodeExportRequest(Buffer.from('{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"xyz"}]}]}]}'), 'json')).toThrow(
      'resourceSpans[0].scopeSpans[0].spans[0].traceId: must be a hex string (OTLP/JSON encodes ids as hex)',
    );
    expect(() => decodeExportRequest(Buffer.from([0x0a, 0x05, 0x01]), 'protobuf')).toThrow(
      /^not an ExportTraceServiceRequest in binary protobuf/,
    );
    expect(decodeExportRequest(Buffer.alloc(0), 'protobuf')).toEqual([]);
  });
});

describe('encodeExportResponse', () => {
  it('empty on full success; partial_success with int64 as a string in JSON', () => {
    expect(encodeExportResponse(null, 'json').toString()).toBe('{}');
    expect(encodeExportResponse(null, 'protobuf')).toHaveLength(0);
    expect(JSON.parse(encodeExportResponse({ rejectedSpans: 2, errorMessage: 'why' }, 'json').toString())).toEqual({
      partialSuccess: { rejectedSpans: '2', errorMessage: 'why' },
    });
    // field 1 (partial_success, length-delimited) holding field 1 (rejected_spans = 2) and field 2 ("why").
    expect([...encodeExportResponse({ rejectedSpans: 2, errorMessage: 'why' }, 'protobuf')]).toEqual([
      0x0a, 0x07, 0x08, 0x02, 0x12, 0x03, 0x77, 0x68, 0x79,
    ]);
  });
});

describe('unixMillisOf', () => {
  it('whole milliseconds of fixed64 nanoseconds beyond 2^53, exactly (BigInt division as the reference)', () => {
    // protobufjs's own int64 type (long.js), as decode and fromObject make it.
    const Long = protobuf.util.Long as unknown as {
      fromString(text: string, unsigned: boolean): { high: number; low: number; toNumber(): number };
    };
    for (const nanos of ['1795514400123999999', '1795514400123000000', '18446744073709551615', '4294967296000000', '999999', '0']) {
      expect(unixMillisOf(Long.fromString(nanos, true))).toBe(Number(BigInt(nanos) / 1_000_000n));
    }
    expect(unixMillisOf(1_500_000)).toBe(1);
    expect(unixMillisOf(undefined)).toBe(0);
  });
});
