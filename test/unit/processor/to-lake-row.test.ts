// The processor's pure mapping from consumed events to lake rows, the failed and undecodable
// stand-ins, and the re-pricing transform. Expected rows and costs are written out by hand.
import { describe, expect, it } from 'vitest';
import { eventIdFor } from '../../../core/ids.js';
import { NO_PROVENANCE, type LakeEventRow } from '../../../core/lake/events-schema.js';
import type { ManifestFile } from '../../../core/lake/manifest.js';
import type { PricedCost } from '../../../pricing/price-event.js';
import { buildTokenRateIndex, buildUnitRateIndex } from '../../../pricing/rate-card-match.js';
import { organizationsWithPendingRows, repriceTransform } from '../../../processor/repricing.js';
import {
  failedLakeRow,
  fitsMoneyColumn,
  repricedLakeRow,
  toLakeRow,
  standInLakeRow,
  unstorableFields,
  eventTimesOutOfRange,
} from '../../../processor/to-lake-row.js';
import type { UsageEvent } from '../../../schemas/usage-event.js';
import { usageEvent } from '../../support/usage-event-builder.js';

const ORG = '3f1c9a52-8e47-4d0b-9a6e-2c5d7b1e4f80';
const T = new Date('2025-06-02T10:00:00.000Z');
const RECEIVED = new Date('2025-06-02T10:00:01.500Z');
const PRICED = new Date('2025-06-02T10:00:02.000Z');
const RECORD_TS = new Date('2025-06-02T10:00:01.600Z');
const AT = { partition: 3, offset: 42, pricedAt: PRICED };

/** An event with most fields set, so the mapping is seen to carry each of them. */
function event(fields: Partial<UsageEvent> = {}): UsageEvent {
  return usageEvent({
    event_id: 'e0000000-0000-5000-8000-000000000001',
    organization_id: ORG,
    idempotency_key: 'req-1',
    api_key_id: 'key-1',
    owner_user_id: 'owner-1',
    subscription_id: 'sub-1',
    received_at: RECEIVED,
    timestamp: T,
    user_id: 'cust-9',
    end_user_id: 'e0000000-0000-5000-8000-0000000000ff',
    model: 'gpt-4o-2024-08-06',
    provider: 'openai',
    input_tokens: 1200,
    output_tokens: 300,
    cache_read_input_tokens: 100,
    reasoning_tokens: 0,
    session_id: 'sess-1',
    span_id: 'span-1',
    span_name: 'plan',
    span_kind: 'agent',
    started_at: new Date('2025-06-02T09:59:59.000Z'),
    agent_id: 'agent-a',
    workflow_id: 'wf-1',
    feature: 'search',
    metadata: '{"team":"core"}',
    ...fields,
  });
}

const COMPLETED: PricedCost = {
  status: 'completed',
  input_cost: '0.003',
  output_cost: '0.003',
  cache_creation_cost: null,
  cache_read_cost: '0.000125',
  reasoning_cost: '0',
  cache_creation_1h_cost: null,
  unit_cost: null,
  total_cost: '0.006125',
  rate_card_slug: 'gpt-4o',
  pending_reason: null,
  rate_card_id: 'standard:gpt-4o:standard:2024-10-02T00:00:00.000Z',
  rate_card_effective_from: new Date('2024-10-02T00:00:00Z'),
  rate_card_service_tier: 'standard',
  context_tier_above_prompt_tokens: null,
  time_of_day_window: null,
  pricing_note: null,
};

const PENDING: PricedCost = {
  status: 'pending_rate_card',
  input_cost: null,
  output_cost: null,
  cache_creation_cost: null,
  cache_read_cost: null,
  reasoning_cost: null,
  cache_creation_1h_cost: null,
  unit_cost: null,
  total_cost: '0',
  rate_card_slug: null,
  ...NO_PROVENANCE,
  pending_reason: 'no rate card for model "zeta" at 2025-06-02T10:00:00.000Z',
};

// The lake row of event() priced COMPLETED at AT: every event field as sent (timestamp under
// its lake name event_timestamp), then the costs, the status and the Kafka position.
const { timestamp: _timestamp, ...carriedFields } = event();
const EXPECTED_ROW: LakeEventRow = {
  ...carriedFields,
  event_timestamp: T,
  input_cost: '0.003',
  output_cost: '0.003',
  cache_creation_cost: null,
  cache_read_cost: '0.000125',
  reasoning_cost: '0',
  unit_cost: null,
  total_cost: '0.006125',
  status: 'completed',
  status_reason: null,
  rate_card_slug: 'gpt-4o',
  kafka_partition: 3,
  kafka_offset: 42,
  priced_at: PRICED,
  service_tier: null,
  cache_creation_1h_input_tokens: null,
  cache_creation_1h_cost: null,
  rate_card_id: 'standard:gpt-4o:standard:2024-10-02T00:00:00.000Z',
  rate_card_effective_from: new Date('2024-10-02T00:00:00Z'),
  rate_card_service_tier: 'standard',
  context_tier_above_prompt_tokens: null,
  time_of_day_window: null,
  pricing_note: null,
};

describe('toLakeRow', () => {
  it('carries every event field, the priced costs and the Kafka position', () => {
    expect(toLakeRow(event(), COMPLETED, AT)).toEqual(EXPECTED_ROW);
  });

  it('stores a pending event with zero total, null class costs and the pending reason', () => {
    const row = toLakeRow(event({ model: 'zeta' }), PENDING, AT);
    expect(row).toMatchObject({
      status: 'pending_rate_card',
      status_reason: 'no rate card for model "zeta" at 2025-06-02T10:00:00.000Z',
      total_cost: '0',
      input_cost: null,
      output_cost: null,
      rate_card_slug: null,
    });
  });

  it('keeps cost_override and the flag reason as sent', () => {
    const row = toLakeRow(event({ cost_override: '1.25', flag_reason: 'timestamp_too_old' }), { ...COMPLETED, total_cost: '1.25' }, AT);
    expect(row.cost_override).toBe('1.25');
    expect(row.total_cost).toBe('1.25');
    expect(row.flag_reason).toBe('timestamp_too_old');
  });
});

describe('what the lake can hold', () => {
  it('accepts costs below 10^15 (15 integer digits), in plain decimal notation only', () => {
    expect(fitsMoneyColumn('0')).toBe(true);
    expect(fitsMoneyColumn('12.5')).toBe(true);
    expect(fitsMoneyColumn('999999999999999.999999999999')).toBe(true); // 15 digits
    expect(fitsMoneyColumn('1000000000000000')).toBe(false); // 16 digits
    expect(fitsMoneyColumn('100000000000000000000000000')).toBe(false); // 27 digits
    expect(fitsMoneyColumn('1e5')).toBe(false);
    expect(fitsMoneyColumn('abc')).toBe(false);
  });

  it('names fields with values the lake cannot store', () => {
    expect(unstorableFields(event())).toEqual([]);
    expect(
      unstorableFields(
        event({ timestamp: new Date(NaN), input_tokens: 2 ** 53, output_tokens: -1, quantity: Infinity, cost_override: '1e400' }),
      ),
    ).toEqual(['timestamp', 'input_tokens', 'output_tokens', 'quantity', 'cost_override']);
  });

  it("names event times outside ingest's range [2000-01-01, 2100-01-01) UTC; a date that is no date is unstorableFields'", () => {
    const at = (iso: string) => new Date(iso);
    expect(eventTimesOutOfRange(event())).toEqual([]);
    expect(eventTimesOutOfRange(event({ timestamp: at('2000-01-01T00:00:00.000Z') }))).toEqual([]);
    expect(eventTimesOutOfRange(event({ timestamp: at('2099-12-31T23:59:59.999Z') }))).toEqual([]);
    expect(eventTimesOutOfRange(event({ timestamp: at('1999-12-31T23:59:59.999Z') }))).toEqual(['timestamp']);
    expect(eventTimesOutOfRange(event({ timestamp: at('2100-01-01T00:00:00.000Z') }))).toEqual(['timestamp']);
    expect(eventTimesOutOfRange(event({ timestamp: at('0000-01-01T00:00:00.000Z') }))).toEqual(['timestamp']);
    expect(eventTimesOutOfRange(event({ timestamp: at('-000001-06-01T00:00:00.000Z') }))).toEqual(['timestamp']);
    expect(eventTimesOutOfRange(event({ started_at: at('0000-01-01T00:00:00.000Z') }))).toEqual(['started_at']);
    expect(eventTimesOutOfRange(event({ timestamp: new Date(NaN), started_at: null }))).toEqual([]);
  });
});

describe('failedLakeRow', () => {
  it('stores the event as failed with zero cost, the reason, and unstorable values cleared', () => {
    const row = failedLakeRow(
      event({ timestamp: new Date(NaN), input_tokens: -5, cost_override: 'lots' }),
      'invalid values: timestamp',
      AT,
      RECORD_TS,
    );
    expect(row).toEqual({
      ...EXPECTED_ROW,
      event_timestamp: RECEIVED, // falls back to received_at
      input_tokens: null,
      cost_override: null,
      input_cost: null,
      output_cost: null,
      cache_read_cost: null,
      reasoning_cost: null,
      total_cost: '0',
      status: 'failed',
      status_reason: 'invalid values: timestamp',
      rate_card_slug: null,
      ...NO_PROVENANCE,
    });
  });

  it('falls back to the Kafka record timestamp when received_at is unusable too', () => {
    const row = failedLakeRow(event({ received_at: new Date(NaN), timestamp: new Date(NaN) }), 'bad', AT, RECORD_TS);
    expect(row.received_at).toEqual(RECORD_TS);
    expect(row.event_timestamp).toEqual(RECORD_TS);
  });
});

describe('standInLakeRow', () => {
  it('is a failed, zero-cost row of the key organization, identified by its Kafka position', () => {
    const row = standInLakeRow('undecodable', ORG, 'undecodable record (bad_magic_byte)', AT, RECORD_TS);
    expect(row).toMatchObject({
      event_id: eventIdFor(ORG, 'undecodable:3:42'),
      organization_id: ORG,
      idempotency_key: 'undecodable:3:42',
      received_at: RECORD_TS,
      event_timestamp: RECORD_TS,
      total_cost: '0',
      status: 'failed',
      status_reason: 'undecodable record (bad_magic_byte)',
      metadata: '{}',
      kafka_partition: 3,
      kafka_offset: 42,
    });
  });
});

describe('re-pricing', () => {
  const pendingRow = toLakeRow(
    event({ model: 'zeta-large', input_tokens: 2000, output_tokens: 500, cache_read_input_tokens: null, reasoning_tokens: null }),
    PENDING,
    AT,
  );
  const zetaCard = {
    model_slug: 'zeta',
    input_cost_per_million: '3',
    output_cost_per_million: '15',
    cache_creation_cost_per_million: null,
    cache_read_cost_per_million: null,
    reasoning_cost_per_million: null,
    effective_from: new Date('2025-01-01T00:00:00Z'),
  };
  const later = new Date('2025-06-03T00:00:00.000Z');

  it('completes a pending row when a card now prices it; identity and offsets stay', () => {
    const transform = repriceTransform({ tokenCards: buildTokenRateIndex([zetaCard]), unitRates: buildUnitRateIndex([]) }, later);
    // 2000 × 3 / 1e6 = 0.006; 500 × 15 / 1e6 = 0.0075; total 0.0135
    expect(transform(pendingRow)).toEqual({
      ...pendingRow,
      input_cost: '0.006',
      output_cost: '0.0075',
      total_cost: '0.0135',
      status: 'completed',
      status_reason: null,
      rate_card_slug: 'zeta',
      // which price was used: the card's derived id, its date and tier; no context tier
      rate_card_id: 'standard:zeta:standard:2025-01-01T00:00:00.000Z',
      rate_card_effective_from: new Date('2025-01-01T00:00:00Z'),
      rate_card_service_tier: 'standard',
      priced_at: later,
    });
  });

  it('keeps a row the new rates still cannot price, and never touches completed rows', () => {
    const cardTooLate = { ...zetaCard, effective_from: new Date('2025-07-01T00:00:00Z') };
    const transform = repriceTransform({ tokenCards: buildTokenRateIndex([cardTooLate]), unitRates: buildUnitRateIndex([]) }, later);
    expect(transform(pendingRow)).toBeNull();
    const withCard = repriceTransform({ tokenCards: buildTokenRateIndex([zetaCard]), unitRates: buildUnitRateIndex([]) }, later);
    expect(withCard(EXPECTED_ROW)).toBeNull();
  });

  it('repricedLakeRow refuses a cost that is still pending', () => {
    expect(repricedLakeRow(pendingRow, PENDING, later)).toBeNull();
  });

  it('finds organizations with pending rows from manifest status counts alone', () => {
    const file = (org: string, pending: number | undefined, table: ManifestFile['table'] = 'events'): ManifestFile => ({
      table,
      path: `${table}/org=${org}/date=2025-06-02/p0-flush-x.parquet`,
      organization_id: org,
      date: '2025-06-02',
      rows: 10,
      bytes: 1000,
      min_offset: 0,
      max_offset: 9,
      max_received_at: '2025-06-02T10:00:00.000Z',
      created_at: '2025-06-02T10:00:00.000Z',
      ...(pending === undefined ? {} : { status_counts: { completed: 10 - pending, pending_rate_card: pending, failed: 0 } }),
    });
    expect(
      organizationsWithPendingRows({
        files: [file('org-b', 2), file('org-a', 0), file('org-c', undefined), file('org-d', 5, 'daily_costs'), file('org-b', 1)],
      }),
    ).toEqual(['org-b', 'org-c']);
  });
});
