// The dev schema registry as the pipeline sees it: through @kafkajs/confluent-schema-registry
// (and, for status codes, plain HTTP), plus the Avro encoding of usage events on top of it.
// Uses the run's registry (inject) and, where a restart or a private subject history is needed,
// registries of its own on port 0 with a temporary state file.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SchemaType } from '@kafkajs/confluent-schema-registry';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRegistryClient } from '../../core/registry/registry-client.js';
import { createUsageEventCodec, UndecodableEventError } from '../../core/registry/usage-event-codec.js';
import { USAGE_EVENT_SUBJECT, usageEventSchemaText, type UsageEvent } from '../../schemas/usage-event.js';
import { startSchemaRegistry, type RunningSchemaRegistry } from '../../scripts/schema-registry/server.js';
import { usageEvent } from '../support/usage-event-builder.js';

const registryUrl = inject('schemaRegistryUrl');

// ---- builders -------------------------------------------------------------------------------

const uniqueSubject = () => `test-${randomUUID()}-value`;

type Field = { name: string; type: unknown; default?: unknown };
const avroRecord = (fields: Field[], name = 'Thing') => JSON.stringify({ type: 'record', name, namespace: 'test', fields });
const avro = (fields: Field[], name?: string) => ({ type: SchemaType.AVRO as const, schema: avroRecord(fields, name) });

const V1: Field[] = [
  { name: 'id', type: 'string' },
  { name: 'count', type: 'string' },
];
const V1_RESPELLED = `{"fields":[{"type":{"type":"string"},"name":"id"},{"name":"count","type":"string"}],
  "namespace":"test","type":"record","name":"Thing"}`;
const V2_OPTIONAL: Field[] = [...V1, { name: 'note', type: ['null', 'string'], default: null }];
const V2_REQUIRED: Field[] = [...V1, { name: 'region', type: 'string' }];
const V2_COUNT_AS_LONG: Field[] = [V1[0]!, { name: 'count', type: 'long' }];

function fullEvent(): UsageEvent {
  return {
    event_id: '0b8f7a3e-5c1d-5e2f-9a4b-6c7d8e9f0a1b',
    organization_id: 'org_acme',
    idempotency_key: 'req-2024-0001',
    api_key_id: 'key_01',
    owner_user_id: 'owner_7',
    subscription_id: 'sub_pro_2024',
    received_at: new Date('2024-05-01T12:00:00.250Z'),
    timestamp: new Date('2024-05-01T11:59:58.000Z'),
    timestamp_provided: true,
    user_id: 'customer-42',
    end_user_id: '5e7c1f0a-2b3c-5d4e-8f90-a1b2c3d4e5f6',
    model: 'claude-3-5-sonnet-20241022',
    provider: 'anthropic',
    metric: 'images',
    unit: 'image',
    quantity: 1234.5,
    input_tokens: 1_200,
    output_tokens: 345,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 1_099_511_627_776, // 2^40: longs beyond 32 bits survive
    reasoning_tokens: 17,
    cost_override: '0.000123456789',
    session_id: 'sess-9',
    span_id: 'span-3',
    parent_span_id: 'span-1',
    span_name: 'search docs',
    span_kind: 'retrieval',
    started_at: new Date('2024-05-01T11:59:57.125Z'),
    agent_id: 'agent-support',
    workflow_id: 'wf-refund',
    feature: 'chat',
    metadata: '{"team":"search","tags":["a","b"],"ünïcode":"✓"}',
    flag_reason: 'timestamp_in_future',
    service_tier: 'batch',
    cache_creation_1h_input_tokens: 0,
  };
}

/** Only the schema's required fields set; every nullable field null. */
function eventWithNulls(): UsageEvent {
  return usageEvent({
    event_id: '1c2d3e4f-0000-5000-8000-000000000002',
    organization_id: 'org_acme',
    idempotency_key: 'req-2024-0002',
    api_key_id: 'key_01',
    received_at: new Date('2024-05-01T00:00:00.000Z'),
    timestamp: new Date('2024-05-01T00:00:00.000Z'),
    timestamp_provided: false,
  });
}

// ---- registries of our own -------------------------------------------------------------------

const tmpDirs: string[] = [];
const running: RunningSchemaRegistry[] = [];

function tempStateFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-registry-'));
  tmpDirs.push(dir);
  return path.join(dir, 'registry.json');
}

async function ownRegistry(file: string): Promise<RunningSchemaRegistry> {
  const registry = await startSchemaRegistry({ host: '127.0.0.1', port: 0, file });
  running.push(registry);
  return registry;
}

afterAll(async () => {
  for (const r of running) await r.stop().catch(() => {});
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

async function http(url: string, method: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('expected the promise to reject');
}

// ---- the registry ------------------------------------------------------------------------------

describe('dev schema registry via @kafkajs/confluent-schema-registry', () => {
  const client = createRegistryClient(registryUrl);

  it('gives the same schema, registered twice or spelled differently, the same id and one version', async () => {
    const subject = uniqueSubject();
    const first = await client.register(avro(V1), { subject });
    const second = await client.register(avro(V1), { subject });
    const respelled = await createRegistryClient(registryUrl).register({ type: SchemaType.AVRO, schema: V1_RESPELLED }, { subject });
    expect(second.id).toBe(first.id);
    expect(respelled.id).toBe(first.id);
    expect(await client.getLatestSchemaId(subject)).toBe(first.id);
    expect(await client.getRegistryIdBySchema(subject, avro(V1))).toBe(first.id);
    expect(await http(`${registryUrl}/subjects/${subject}/versions`, 'GET')).toEqual({ status: 200, json: [1] });
    // The client sets the subject's level on first registration.
    expect(await http(`${registryUrl}/config/${subject}`, 'GET')).toEqual({ status: 200, json: { compatibilityLevel: 'BACKWARD' } });
  });

  it('numbers schemas globally: the same schema under another subject keeps its id', async () => {
    const fields: Field[] = [{ name: `only_${randomUUID().replaceAll('-', '')}`, type: 'int' }];
    const a = await client.register(avro(fields), { subject: uniqueSubject() });
    const b = await client.register(avro(fields), { subject: uniqueSubject() });
    expect(b.id).toBe(a.id);
  });

  it('refuses an incompatible version: the client throws, the HTTP answer is 409 / 409', async () => {
    const subject = uniqueSubject();
    const v1 = await client.register(avro(V1), { subject });

    const requiredField = await rejection(client.register(avro(V2_REQUIRED), { subject }));
    expect(requiredField.status).toBe(409);
    expect(requiredField.message).toContain('incompatible');
    expect(requiredField.message).toContain('region');

    const typeChange = await rejection(client.register(avro(V2_COUNT_AS_LONG), { subject }));
    expect(typeChange.status).toBe(409);

    const raw = await http(`${registryUrl}/subjects/${subject}/versions`, 'POST', { schema: avroRecord(V2_COUNT_AS_LONG) });
    expect(raw.status).toBe(409);
    expect(raw.json.error_code).toBe(409);
    expect(raw.json.message).toContain('cannot read "string" as "long"');

    expect(await client.getLatestSchemaId(subject)).toBe(v1.id);
    expect(await http(`${registryUrl}/subjects/${subject}/versions`, 'GET')).toEqual({ status: 200, json: [1] });
  });

  it('accepts a compatible version (new optional field with a default) under a new id', async () => {
    const subject = uniqueSubject();
    const v1 = await client.register(avro(V1), { subject });
    const v2 = await client.register(avro(V2_OPTIONAL), { subject });
    expect(v2.id).not.toBe(v1.id);
    expect(await client.getLatestSchemaId(subject)).toBe(v2.id);
    expect(await client.getRegistryId(subject, 1)).toBe(v1.id);
    const latest = await http(`${registryUrl}/subjects/${subject}/versions/latest`, 'GET');
    expect(latest).toEqual({ status: 200, json: { subject, version: 2, id: v2.id, schema: avroRecord(V2_OPTIONAL) } });
    expect((await http(`${registryUrl}/schemas/ids/${v1.id}`, 'GET')).json).toEqual({ schema: avroRecord(V1) });
  });

  it('answers unknown subjects, schemas and invalid schemas in Confluent error shape', async () => {
    const subject = uniqueSubject();
    expect(await http(`${registryUrl}/subjects/${subject}/versions/latest`, 'GET')).toEqual({
      status: 404,
      json: { error_code: 40401, message: `Subject '${subject}' not found.` },
    });
    expect((await rejection(client.getLatestSchemaId(subject))).status).toBe(404);
    expect((await http(`${registryUrl}/schemas/ids/2147483647`, 'GET')).json.error_code).toBe(40403);
    const invalid = await http(`${registryUrl}/subjects/${subject}/versions`, 'POST', { schema: '{"type":"record","name":"X"}' });
    expect(invalid.status).toBe(422);
    expect(invalid.json.error_code).toBe(42201);
  });

  it('keeps ids, versions and levels across a stop and restart on the same file', async () => {
    const file = tempStateFile();
    const before = await ownRegistry(file);
    const beforeClient = createRegistryClient(before.url);
    const a1 = await beforeClient.register(avro(V1), { subject: 'a-value' });
    const a2 = await beforeClient.register(avro(V2_OPTIONAL), { subject: 'a-value' });
    const b1 = await beforeClient.register(avro([{ name: 'x', type: 'int' }], 'Other'), { subject: 'b-value' });
    expect([a1.id, a2.id, b1.id]).toEqual([1, 2, 3]);
    await before.stop();

    const after = await ownRegistry(file);
    const afterClient = createRegistryClient(after.url);
    expect(await afterClient.getLatestSchemaId('a-value')).toBe(2);
    expect(await afterClient.getRegistryId('a-value', 1)).toBe(1);
    expect(await afterClient.getLatestSchemaId('b-value')).toBe(3);
    expect((await afterClient.register(avro(V1), { subject: 'a-value' })).id).toBe(1);
    expect((await http(`${after.url}/config/a-value`, 'GET')).json).toEqual({ compatibilityLevel: 'BACKWARD' });
    expect((await rejection(afterClient.register(avro(V2_REQUIRED), { subject: 'a-value' }))).status).toBe(409);
    // New schemas continue the numbering instead of reusing ids.
    expect((await afterClient.register(avro([{ name: 'y', type: 'int' }], 'Third'), { subject: 'c-value' })).id).toBe(4);
  });
});

// ---- the usage event codec --------------------------------------------------------------------

describe('usage event codec', () => {
  it('registers schemas/usage-event.avsc once and frames records with its id', async () => {
    const codec = await createUsageEventCodec(registryUrl);
    const again = await createUsageEventCodec(registryUrl);
    expect(again.schemaId).toBe(codec.schemaId);
    const client = createRegistryClient(registryUrl);
    const lookedUp = await client.getRegistryIdBySchema(USAGE_EVENT_SUBJECT, { type: SchemaType.AVRO, schema: usageEventSchemaText() });
    expect(lookedUp).toBe(codec.schemaId);

    const buf = await codec.encode(fullEvent());
    expect(buf[0]).toBe(0);
    expect(buf.readInt32BE(1)).toBe(codec.schemaId);
  });

  it('round-trips an event with every field set, Dates included, also through a plain client', async () => {
    const codec = await createUsageEventCodec(registryUrl);
    const buf = await codec.encode(fullEvent());
    const decoded = await codec.decode(buf);
    expect(decoded).toEqual(fullEvent());
    expect(decoded.received_at).toBeInstanceOf(Date);
    expect(decoded.started_at).toBeInstanceOf(Date);

    // Another process with only the client library reads the same bytes, and writes bytes we read.
    const other = createRegistryClient(registryUrl);
    expect(await other.decode(buf)).toEqual(fullEvent());
    expect(await codec.decode(await other.encode(codec.schemaId, fullEvent()))).toEqual(fullEvent());
  });

  it('round-trips an event whose nullable fields are all null', async () => {
    const codec = await createUsageEventCodec(registryUrl);
    expect(await codec.decode(await codec.encode(eventWithNulls()))).toEqual(eventWithNulls());
  });

  it('refuses to encode an event that does not match the schema', async () => {
    const codec = await createUsageEventCodec(registryUrl);
    const noEventId = { ...fullEvent(), event_id: undefined } as unknown as UsageEvent;
    const epochNumber = { ...fullEvent(), timestamp: 1_714_564_800_000 } as unknown as UsageEvent;
    expect((await rejection(codec.encode(noEventId))).paths).toEqual([['event_id']]);
    expect((await rejection(codec.encode(epochNumber))).paths).toEqual([['timestamp']]);
  });

  it('throws UndecodableEventError with a reason for bytes it can never decode', async () => {
    const codec = await createUsageEventCodec(registryUrl);
    const good = await codec.encode(fullEvent());
    const header = good.subarray(0, 5);
    const unknownId = Buffer.from(good);
    unknownId.writeInt32BE(2_147_483_647, 1);
    const cases: [Buffer, string][] = [
      [Buffer.alloc(0), 'too_short'],
      [Buffer.from([0, 0, 0]), 'too_short'],
      [Buffer.from('{"event_id":"not avro"}'), 'bad_magic_byte'],
      [Buffer.concat([Buffer.from([1]), good.subarray(1)]), 'bad_magic_byte'],
      [Buffer.concat([header, good.subarray(5, 20)]), 'bad_body'],
      [Buffer.concat([good, Buffer.from([0])]), 'bad_body'],
      [unknownId, 'unknown_schema'],
    ];
    for (const [bytes, reason] of cases) {
      const error = await rejection(codec.decode(bytes));
      expect(error).toBeInstanceOf(UndecodableEventError);
      expect({ reason: error.reason, code: error.code }).toEqual({ reason, code: 'UNDECODABLE_EVENT' });
    }
  });

  it('reads records written with a newer or another schema version into the current shape', async () => {
    const registry = await ownRegistry(tempStateFile());
    const codec = await createUsageEventCodec(registry.url);
    const client = createRegistryClient(registry.url);

    // A later schema version adds an optional field; records written with it still decode.
    const current = JSON.parse(usageEventSchemaText());
    const newer = { ...current, fields: [...current.fields, { name: 'region', type: ['null', 'string'], default: null }] };
    const { id: newerId } = await client.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(newer) },
      { subject: USAGE_EVENT_SUBJECT },
    );
    expect(newerId).not.toBe(codec.schemaId);
    const written = await client.encode(newerId, { ...fullEvent(), region: 'eu-west-1' });
    expect(await codec.decode(written)).toEqual(fullEvent());

    // A schema id of some unrelated record type is not a usage event.
    const { id: otherId } = await client.register(avro([{ name: 'x', type: 'int' }], 'Unrelated'), { subject: 'unrelated-value' });
    const error = await rejection(codec.decode(await client.encode(otherId, { x: 1 })));
    expect(error).toBeInstanceOf(UndecodableEventError);
    expect(error.reason).toBe('incompatible_schema');
  });

  it('does not call a record undecodable when the registry is only unreachable', async () => {
    const registry = await ownRegistry(tempStateFile());
    const codec = await createUsageEventCodec(registry.url);
    const client = createRegistryClient(registry.url);
    const { id } = await client.register(avro([{ name: 'x', type: 'int' }], 'Unrelated'), { subject: 'unrelated-value' });
    const record = await client.encode(id, { x: 1 });
    await registry.stop();
    const error = await rejection(codec.decode(record));
    expect(error).not.toBeInstanceOf(UndecodableEventError);
    // Records of the codec's own schema need no registry at all.
    expect(await codec.decode(await codec.encode(fullEvent()))).toEqual(fullEvent());
  });
});
