import { describe, expect, it } from 'vitest';
import { metadataMap, metricNameOf, usageEventItem, type StoredUsageEvent } from '../../../../api/usage/usage.js';

const stored = (fields: Partial<StoredUsageEvent>): StoredUsageEvent => ({
  event_id: 'e1',
  metric: null,
  quantity: null,
  input_tokens: 100,
  output_tokens: 20,
  event_timestamp: new Date('2025-03-10T12:00:00.5Z'),
  metadata: '{}',
  provider: null,
  feature: null,
  agent_id: null,
  workflow_id: null,
  unit: null,
  ...fields,
});

describe('usageEventItem', () => {
  it('is an ai.inference tokens event with input plus output as quantity', () => {
    expect(usageEventItem(stored({ provider: 'openai' }))).toEqual({
      id: 'e1',
      event_type: 'ai.inference',
      metric_name: 'tokens',
      quantity: 120,
      event_timestamp: '2025-03-10T12:00:00.500Z',
      metadata: { provider: 'openai' },
    });
  });

  it('uses the lowercased metric, its quantity and maps the unit to metadata.units', () => {
    const item = usageEventItem(
      stored({ metric: 'Image_Generation', quantity: 3, unit: 'image', input_tokens: null, output_tokens: null }),
    );
    expect(item).toMatchObject({ metric_name: 'image_generation', quantity: 3, metadata: { units: 'image' } });
  });

  it('leaves metadata out when there is none', () => {
    expect(usageEventItem(stored({})).metadata).toBeUndefined();
  });
});

describe('metadataMap', () => {
  it('keeps strings, writes other JSON as text, drops nulls, and lets mapped keys win', () => {
    expect(
      metadataMap('{"team":"a","n":5,"f":1.5,"ok":true,"o":{"x":[1]},"z":null,"feature":"from-metadata"}', {
        feature: 'typed',
        agent_id: null,
      }),
    ).toEqual({ team: 'a', n: '5', f: '1.5', ok: 'true', o: '{"x":[1]}', feature: 'typed' });
  });
});

describe('metricNameOf', () => {
  it('is tokens without a metric', () => {
    expect(metricNameOf(null)).toBe('tokens');
    expect(metricNameOf('')).toBe('tokens');
    expect(metricNameOf('TTS')).toBe('tts');
  });
});
