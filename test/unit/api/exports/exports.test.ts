// The FOCUS row rule and the schedule rules, with worked examples: a group's classes and the rest
// of its cost as SKUs whose costs sum exactly to the group's total, unit prices per million tokens
// rounded half-up to 12 places, tags, billing periods; due periods, object keys, destinations.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../core/errors.js';
import { Big } from '../../../../core/money.js';
import { backfillPeriods, duePeriod, objectKey, owedPeriods, parseScheduleInput } from '../../../../api/exports/export-schedules.js';
import { parseDimensions, wholeDayRange } from '../../../../api/exports/exports.service.js';
import { FOCUS_COLUMNS, focusRowsOf, type FocusCostGroup } from '../../../../api/exports/focus.js';

const group = (fields: Partial<FocusCostGroup> = {}): FocusCostGroup => ({
  event_date: '2026-02-28',
  provider: null,
  model: 'gpt-4o',
  end_user_id: null,
  user_id: null,
  agent_id: null,
  workflow_id: null,
  feature: null,
  event_count: 3,
  input_tokens: null,
  output_tokens: null,
  cache_creation_input_tokens: null,
  cache_read_input_tokens: null,
  reasoning_tokens: null,
  input_cost: null,
  output_cost: null,
  cache_creation_cost: null,
  cache_read_cost: null,
  reasoning_cost: null,
  total_cost: '0',
  dimensions: [],
  ...fields,
});
const ctx = { organizationId: 'org-1', organizationName: 'Acme', dimensionKeys: [] as string[] };

describe('focusRowsOf', () => {
  it('one row per reported class plus the rest of the cost, summing exactly to the total', () => {
    // input 3 × 1M... : 1,234,567 tokens cost 3.0864175 (2.5 per million); output 0 tokens 0 (skipped);
    // reasoning 7 tokens 0.00007; total 3.1 → rest 3.1 − 3.0864175 − 0.00007 = 0.0135125 on 3 requests.
    const rows = focusRowsOf(
      group({
        input_tokens: 1_234_567,
        input_cost: '3.0864175',
        output_tokens: 0,
        output_cost: '0',
        reasoning_tokens: 7,
        reasoning_cost: '0.00007',
        total_cost: '3.1',
      }),
      ctx,
    );
    expect(
      rows.map((r) => [r.SkuId, r.ConsumedQuantity, r.ConsumedUnit, r.PricingQuantity, r.PricingUnit, r.ListUnitPrice, r.BilledCost]),
    ).toEqual([
      // 3.0864175 / 1.234567 = 2.5
      ['openai/gpt-4o/input', '1234567', 'Tokens', '1.234567', '1M Tokens', '2.5', '3.0864175'],
      // 0.00007 / 0.000007 = 10
      ['openai/gpt-4o/reasoning', '7', 'Tokens', '0.000007', '1M Tokens', '10', '0.00007'],
      // 0.0135125 / 3 = 0.004504166666…6 → 0.004504166667
      ['openai/gpt-4o/other', '3', 'Requests', '3', 'Requests', '0.004504166667', '0.0135125'],
    ]);
    expect(rows.reduce((s, r) => s.plus(r.BilledCost!), new Big(0)).toFixed()).toBe('3.1');
    for (const r of rows) expect([r.EffectiveCost, r.ListCost, r.ContractedCost]).toEqual([r.BilledCost, r.BilledCost, r.BilledCost]);
  });

  it('February: the charge is the day, the billing period the month (UTC); every column present', () => {
    const [row] = focusRowsOf(group({ input_tokens: 10, input_cost: '0.000025', total_cost: '0.000025' }), ctx);
    expect(Object.keys(row!)).toEqual(FOCUS_COLUMNS.map(([name]) => name));
    expect([row!.ChargePeriodStart, row!.ChargePeriodEnd, row!.BillingPeriodStart, row!.BillingPeriodEnd]).toEqual([
      '2026-02-28T00:00:00Z',
      '2026-03-01T00:00:00Z',
      '2026-02-01T00:00:00Z',
      '2026-03-01T00:00:00Z',
    ]);
    expect([row!.ProviderName, row!.ServiceName, row!.ServiceCategory, row!.ChargeCategory, row!.BillingCurrency]).toEqual([
      'OpenAI',
      'OpenAI API',
      'AI and Machine Learning',
      'Usage',
      'USD',
    ]);
  });

  it('Tags: our keys prefixed, the chosen dimensions as the user named them, nulls left out', () => {
    const [row] = focusRowsOf(
      group({
        provider: 'Anthropic',
        model: 'claude-sonnet-4',
        end_user_id: 'u-1',
        user_id: 'alice',
        workflow_id: 'wf',
        input_tokens: 1,
        input_cost: '0.000003',
        total_cost: '0.000003',
        dimensions: ['red', null],
      }),
      { ...ctx, dimensionKeys: ['team', 'region'] },
    );
    expect(JSON.parse(row!.Tags!)).toEqual({
      'marginal/end_user': 'alice',
      'marginal/end_user_id': 'u-1',
      'marginal/workflow': 'wf',
      team: 'red',
    });
    // The sent provider, lowercased, names the SKU; its display name the provider columns.
    expect([row!.SkuId, row!.ProviderName]).toEqual(['anthropic/claude-sonnet-4/input', 'Anthropic']);
  });

  it('a group whose whole cost is in its classes has no other row; a negative rest is kept', () => {
    expect(focusRowsOf(group({ input_tokens: 1, input_cost: '1', total_cost: '1' }), ctx).map((r) => r.SkuId)).toEqual([
      'openai/gpt-4o/input',
    ]);
    const rows = focusRowsOf(group({ input_tokens: 1, input_cost: '1', total_cost: '0.5' }), ctx);
    expect(rows.map((r) => r.BilledCost)).toEqual(['1', '-0.5']);
  });
});

describe('export input', () => {
  it('ranges are whole UTC days', () => {
    expect(wholeDayRange('2026-10-01', '2026-11-01').end.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(() => wholeDayRange('2026-10-01T01:00:00Z', '2026-11-01')).toThrow(ValidationError);
  });

  it('dimensions: trimmed, at most 5, each once, metadata keys only', () => {
    expect(parseDimensions(' team , region ')).toEqual(['team', 'region']);
    expect(parseDimensions(undefined)).toEqual([]);
    for (const bad of ['a,b,c,d,e,f', 'team,team', 'feature', 'a,,b']) expect(() => parseDimensions(bad), bad).toThrow(ValidationError);
  });
});

describe('schedules', () => {
  it('the due period is the latest whole day or month that ended at least settleMs ago', () => {
    const hour = 3_600_000;
    expect(duePeriod('daily', new Date('2026-11-01T02:00:00Z'), hour)).toEqual({ start: '2026-10-31', end: '2026-11-01' });
    // 00:30 is within the hour of settling: the day before.
    expect(duePeriod('daily', new Date('2026-11-01T00:30:00Z'), hour)).toEqual({ start: '2026-10-30', end: '2026-10-31' });
    expect(duePeriod('monthly', new Date('2026-03-01T01:00:00Z'), hour)).toEqual({ start: '2026-02-01', end: '2026-03-01' });
    expect(duePeriod('monthly', new Date('2026-01-15T00:00:00Z'), hour)).toEqual({ start: '2025-12-01', end: '2026-01-01' });
  });

  it('a schedule owes every period since the one due when it was made, at most 31 days or 12 months back', () => {
    const hour = 3_600_000;
    const made = new Date('2026-10-29T12:00:00Z');
    // Due when made: October 28; due now: October 31 (November 1 at 00:30 has not settled).
    expect(owedPeriods('daily', made, new Date('2026-11-01T00:30:00Z'), hour).map((p) => p.start)).toEqual([
      '2026-10-28',
      '2026-10-29',
      '2026-10-30',
    ]);
    expect(owedPeriods('daily', made, new Date('2026-10-29T13:00:00Z'), hour).map((p) => p.start)).toEqual(['2026-10-28']);
    expect(owedPeriods('daily', new Date('2025-01-01T00:00:00Z'), new Date('2026-11-01T02:00:00Z'), hour)).toHaveLength(31);
    expect(owedPeriods('monthly', new Date('2026-01-15T00:00:00Z'), new Date('2026-03-02T00:00:00Z'), hour).map((p) => p.start)).toEqual([
      '2025-12-01',
      '2026-01-01',
      '2026-02-01',
    ]);
  });

  it('a backfill adds the periods from the one holding its date up to the last long ended, at most 12 months back', () => {
    const made = new Date('2026-11-01T00:30:00Z');
    // Daily: October 29 and 30 (ended before October 31 began); the schedule's own owed days go on from October 30.
    expect(backfillPeriods('daily', '2026-10-29', made)).toEqual([
      { start: '2026-10-29', end: '2026-10-30' },
      { start: '2026-10-30', end: '2026-10-31' },
    ]);
    expect(backfillPeriods('daily', '2026-10-31', made)).toEqual([]);
    // Monthly: from August (holding August 15) to September; October is the schedule's own first month.
    expect(backfillPeriods('monthly', '2026-08-15', made).map((p) => p.start)).toEqual(['2026-08-01', '2026-09-01']);
    expect(backfillPeriods('daily', '2025-11-01', made)).toHaveLength(364);
    for (const bad of ['2025-10-31', '2026-10-01T05:00:00Z', 'yesterday']) {
      expect(() => backfillPeriods('daily', bad, made), bad).toThrow(ValidationError);
    }
  });

  it('dimensions are for FOCUS schedules only', () => {
    expect(parseScheduleInput({ kind: 'focus', frequency: 'daily', destination: 'x', dimensions: 'team, region' }).dimensions).toEqual([
      'team',
      'region',
    ]);
    expect(parseScheduleInput({ kind: 'events', frequency: 'daily', destination: 'x' }).dimensions).toEqual([]);
    expect(() => parseScheduleInput({ kind: 'rollups', frequency: 'daily', destination: 'x', dimensions: 'team' })).toThrow(
      ValidationError,
    );
  });

  it('the object key depends on organization, kind, frequency and period only', () => {
    const s3 = parseScheduleInput({
      kind: 'focus',
      frequency: 'monthly',
      destination: 's3://bucket/a/b/',
      s3: { access_key_id: 'AK', secret_access_key: 'secret-1234', endpoint: '127.0.0.1:9000' },
    });
    expect(s3.destination).toMatchObject({
      type: 's3',
      bucket: 'bucket',
      prefix: 'a/b/',
      url_style: 'path',
      region: 'us-east-1',
      secret_key_hint: '1234',
    });
    expect(JSON.stringify(s3.destination)).not.toContain('secret-1234');
    const key = objectKey(
      { organizationId: 'org', kind: 'focus', frequency: 'monthly', destination: s3.destination },
      { start: '2026-10-01', end: '2026-11-01' },
    );
    expect(key).toBe('a/b/org/focus/monthly/2026-10.parquet');
    const folder = parseScheduleInput({ kind: 'events', frequency: 'daily', destination: 'exports//acme/' });
    expect(folder.destination).toEqual({ type: 'folder', path: 'exports/acme' });
    expect(
      objectKey(
        { organizationId: 'org', kind: 'events', frequency: 'daily', destination: folder.destination },
        { start: '2026-10-31', end: '2026-11-01' },
      ),
    ).toBe('org/events/daily/2026-10-31.parquet');
  });

  it('refuses a destination outside DATA_DIR, and S3 access without an s3:// destination', () => {
    for (const destination of ['/etc', '..', 'a/../../b', '.'])
      expect(() => parseScheduleInput({ kind: 'focus', frequency: 'daily', destination }), destination).toThrow(ValidationError);
    expect(() =>
      parseScheduleInput({ kind: 'focus', frequency: 'daily', destination: 'x', s3: { access_key_id: 'a', secret_access_key: 'b' } }),
    ).toThrow(ValidationError);
  });
});
