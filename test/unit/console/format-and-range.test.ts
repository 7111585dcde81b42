// The console's pure rules: money shown from decimal strings exactly, changes and percentages to 2
// decimals, date-range presets and URL state, bucket starts, the session waterfall's geometry.
import { describe, expect, it } from 'vitest';
import type { SessionTree, SessionTreeNode } from '../../../console/src/api/types.js';
import { changePercent, money, percent, perUnit, sumMoney } from '../../../console/src/format/money.js';
import { bucketStarts, presetRange, previousRange, rangeFromSearch, rangeSearchParams } from '../../../console/src/range/date-range.js';
import { markers, waterfall } from '../../../console/src/pages/sessions/waterfall.js';

describe('money', () => {
  it('keeps every digit the API sent, groups thousands, pads to cents', () => {
    expect(money('1234567.5')).toBe('$1,234,567.50');
    expect(money('0.000000000001')).toBe('$0.000000000001');
    expect(money('-3.2')).toBe('-$3.20');
    expect(money('0')).toBe('$0.00');
    expect(money('12345678901234567890.123456789012')).toBe('$12,345,678,901,234,567,890.123456789012');
    expect(money(null)).toBe('—');
  });

  it('adds without binary floats (0.1 + 0.2 is 0.3)', () => {
    expect(sumMoney(['0.1', '0.2'])).toBe('0.3');
    expect(sumMoney(['1e-12', '0.000000000002', null])).toBe('0.000000000003');
  });

  it('changes and per-unit figures, rounded half-up', () => {
    expect(changePercent('150', '100')).toBe('50.00');
    expect(changePercent('1', '3')).toBe('-66.67');
    expect(changePercent('0.005', '0.004')).toBe('25.00');
    expect(changePercent('5', '0')).toBeNull();
    // The API's rule (core/money.ts): a margin loss that halved is +50 %, not -50 %.
    expect(changePercent('-5', '-10')).toBe('50.00');
    expect(perUnit('1', 3)).toBe('0.333333');
    expect(perUnit('2', 3)).toBe('0.666667');
    expect(perUnit('1', 0)).toBeNull();
    expect(percent(12.5)).toBe('12.50%');
    expect(percent(null)).toBe('—');
  });
});

describe('date range', () => {
  const today = new Date('2026-03-15T10:00:00Z');

  it('presets name UTC days with an exclusive end', () => {
    expect(presetRange('this-month', today)).toEqual({ preset: 'this-month', start: '2026-03-01', end: '2026-03-16' });
    expect(presetRange('last-month', today)).toEqual({ preset: 'last-month', start: '2026-02-01', end: '2026-03-01' });
    expect(presetRange('last-7-days', today)).toEqual({ preset: 'last-7-days', start: '2026-03-09', end: '2026-03-16' });
    expect(presetRange('last-90-days', today).start).toBe('2025-12-16');
    expect(presetRange('ytd', today)).toEqual({ preset: 'ytd', start: '2026-01-01', end: '2026-03-16' });
  });

  it('reads and writes the URL; a bad custom range falls back to the default', () => {
    const custom = rangeFromSearch('range=custom&from=2026-01-05&to=2026-01-05', today);
    expect(custom).toEqual({ preset: 'custom', start: '2026-01-05', end: '2026-01-06' });
    expect(rangeSearchParams(custom)).toEqual({ range: 'custom', from: '2026-01-05', to: '2026-01-05' });
    expect(rangeFromSearch('range=custom&from=2026-02-01&to=2026-01-01', today).preset).toBe('last-30-days');
    expect(rangeFromSearch('range=nonsense', today).preset).toBe('last-30-days');
    expect(previousRange(custom)).toEqual({ preset: 'custom', start: '2026-01-04', end: '2026-01-05' });
  });

  it('bucket starts: days, ISO weeks from Monday, calendar months', () => {
    const r = { preset: 'custom' as const, start: '2026-03-04', end: '2026-03-18' };
    expect(bucketStarts(r, 'daily')).toHaveLength(14);
    expect(bucketStarts(r, 'weekly')).toEqual(['2026-03-02T00:00:00.000Z', '2026-03-09T00:00:00.000Z', '2026-03-16T00:00:00.000Z']);
    expect(bucketStarts({ preset: 'custom', start: '2026-01-15', end: '2026-04-02' }, 'monthly')).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-02-01T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
      '2026-04-01T00:00:00.000Z',
    ]);
  });
});

describe('waterfall', () => {
  const node = (
    span_id: string,
    depth: number,
    started_at: string | null,
    duration_ms: number | null,
    children: SessionTreeNode[] = [],
    extra: Partial<SessionTreeNode> = {},
  ): SessionTreeNode => ({
    span_id,
    parent_span_id: null,
    name: span_id,
    kind: 'llm',
    agent_id: null,
    own_cost: '1',
    subtree_cost: '1',
    event_count: 1,
    depth,
    orphaned: false,
    started_at,
    duration_ms,
    overlapped_by_sibling: false,
    children,
    ...extra,
  });
  const tree = (roots: SessionTreeNode[]): SessionTree => ({
    session_id: 's',
    roots,
    untraced: { total_cost: '0', event_count: 0 },
    run_wall_ms: null,
    truncated: false,
    span_count: 0,
    node_limit: 500,
    withheld: { total_cost: '0', span_count: 0, event_count: 0 },
  });

  it('flattens depth-first and places bars on the run axis', () => {
    const t = tree([
      node('a', 0, '2026-01-01T00:00:00.000Z', 1000, [node('b', 1, '2026-01-01T00:00:00.250Z', 500), node('c', 1, null, null)]),
      node('d', 0, '2026-01-01T00:00:01.000Z', 1000, [], { orphaned: true, cycle: true }),
    ]);
    const w = waterfall(t);
    expect(w.rows.map((r) => [r.node.span_id, r.depth, r.left, r.width])).toEqual([
      ['a', 0, 0, 50],
      ['b', 1, 12.5, 25],
      ['c', 1, null, null],
      ['d', 0, 50, 50],
    ]);
    expect(w.spanMs).toBe(2000);
    expect(markers(t.roots[1]!)).toEqual(['orphaned', 'cycle']);
  });

  it('no timing at all: rows without bars', () => {
    const w = waterfall(tree([node('a', 0, null, null)]));
    expect(w.startMs).toBeNull();
    expect(w.rows[0]!.left).toBeNull();
  });
});
