// The usage-events Avro record gained service_tier and cache_creation_1h_input_tokens (issue 15).
// Records written with the previous version (kept in test/fixtures) must still decode, and the
// dev registry's own rules must accept the new version in both directions, so old and new
// processors can run side by side during an upgrade.
import fs from 'node:fs';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { compatibilityErrors, parseAvroSchema } from '../../../scripts/schema-registry/compatibility.js';
import { usageEventSchemaText, type UsageEvent } from '../../../schemas/usage-event.js';
import { usageEvent } from '../../support/usage-event-builder.js';
import { fromRoot } from '../../../core/paths.js';
import { AVRO_TYPE_OPTIONS } from '../../../core/registry/registry-client.js';

const v1Text = fs.readFileSync(fromRoot('test', 'fixtures', 'schemas', 'usage-event.v1.avsc'), 'utf8');
// The registry's check (plain avsc types) and the pipeline's codec types (Dates for timestamp-millis).
const registryV1 = parseAvroSchema(v1Text).type;
const registryV2 = parseAvroSchema(usageEventSchemaText()).type;
// Each type gets its own registry of names (both versions are named io.marginal.UsageEvent).
const codecType = (text: string) => avro.Type.forSchema(JSON.parse(text) as avro.Schema, { ...AVRO_TYPE_OPTIONS, registry: {} });
const v1 = codecType(v1Text);
const v2 = codecType(usageEventSchemaText());

describe('usage-event schema evolution', () => {
  it('the registry accepts the new version under every level, transitively', () => {
    for (const level of ['BACKWARD_TRANSITIVE', 'FORWARD_TRANSITIVE', 'FULL_TRANSITIVE'] as const) {
      expect(compatibilityErrors(level, registryV2, [{ version: 1, type: registryV1 }])).toEqual([]);
    }
  });

  it('a record written with version 1 decodes with the new fields null', () => {
    const old = usageEvent({ model: 'claude-sonnet-4-5', input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 7 });
    const bytes = v1.toBuffer(old);
    const decoded = v2.fromBuffer(bytes, v2.createResolver(v1)) as UsageEvent;
    expect(decoded.service_tier).toBeNull();
    expect(decoded.cache_creation_1h_input_tokens).toBeNull();
    expect(decoded).toMatchObject({ model: 'claude-sonnet-4-5', input_tokens: 10, cache_creation_input_tokens: 7 });
  });

  it('a version 2 record round-trips, and version 1 readers skip the new fields', () => {
    const event = usageEvent({
      model: 'claude-sonnet-4-5',
      input_tokens: 1,
      output_tokens: 1,
      cache_creation_input_tokens: 9,
      cache_creation_1h_input_tokens: 4,
      service_tier: 'batch',
    });
    const bytes = v2.toBuffer(event);
    expect(v2.fromBuffer(bytes)).toMatchObject({ service_tier: 'batch', cache_creation_1h_input_tokens: 4 });
    const asV1 = v1.fromBuffer(bytes, v1.createResolver(v2)) as Record<string, unknown>;
    expect(asV1.cache_creation_input_tokens).toBe(9);
    expect('service_tier' in asV1).toBe(false);
  });

  it('producers that do not know the new fields still encode (avsc fills the defaults)', () => {
    const {
      service_tier: _t,
      cache_creation_1h_input_tokens: _c,
      ...withoutNewFields
    } = usageEvent({ model: 'm', input_tokens: 1, output_tokens: 1 });
    const decoded = v2.fromBuffer(v2.toBuffer(withoutNewFields)) as UsageEvent;
    expect(decoded.service_tier).toBeNull();
  });

  it('is a real avsc record type', () => {
    expect(avro.Type.isType(v2, 'record')).toBe(true);
  });
});
