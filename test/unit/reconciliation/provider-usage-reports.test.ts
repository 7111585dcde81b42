import { describe, expect, it } from 'vitest';
import { parseUsageReport, sumUsageLines } from '../../../reconciliation/provider-usage-reports.js';
import { ANTHROPIC_USAGE_REPORT, OPENAI_USAGE_REPORT } from '../../support/provider-cost-reports.js';

describe('parseUsageReport', () => {
  it("reads OpenAI's completions usage into disjoint classes (its input_tokens include the cached)", () => {
    expect(sumUsageLines(parseUsageReport('openai_usage_completions', OPENAI_USAGE_REPORT))).toEqual([
      // 1.5M − 300k cached = 1.2M not from cache.
      {
        date: '2026-01-02',
        provider: 'openai',
        model: 'gpt-4o',
        project: 'proj_a',
        input_tokens: 1_200_000,
        cached_input_tokens: 300_000,
        output_tokens: 150_000,
      },
      {
        date: '2026-01-02',
        provider: 'openai',
        model: 'gpt-4o',
        project: 'proj_b',
        input_tokens: 400_000,
        cached_input_tokens: 0,
        output_tokens: 50_000,
      },
    ]);
  });

  it("reads Anthropic's messages usage report: cache writes count as input, tiers summed", () => {
    expect(sumUsageLines(parseUsageReport('anthropic_usage_report', ANTHROPIC_USAGE_REPORT))).toEqual([
      // standard 600k + 100k (5m writes) + 50k (1h writes), batch 100k: 850k; reads 150k; output 180k + 20k.
      {
        date: '2026-01-02',
        provider: 'anthropic',
        model: 'claude-sonnet-4',
        project: 'wrkspc_1',
        input_tokens: 850_000,
        cached_input_tokens: 150_000,
        output_tokens: 200_000,
      },
      {
        date: '2026-01-02',
        provider: 'anthropic',
        model: 'claude-haiku-4-5',
        project: '',
        input_tokens: 10_000,
        cached_input_tokens: 0,
        output_tokens: 5_000,
      },
    ]);
  });

  it('an ungrouped result counts for all models; a key stands in for a missing project', () => {
    const page = {
      data: [
        {
          start_time: 1767312000, // 2026-01-02T00:00:00Z
          end_time: 1767398400,
          results: [{ input_tokens: 10, output_tokens: 5, model: null, project_id: null, api_key_id: 'key_1' }],
        },
      ],
    };
    expect(parseUsageReport('openai_usage_completions', page)).toEqual([
      {
        date: '2026-01-02',
        provider: 'openai',
        model: '(all models)',
        project: 'key_1',
        input_tokens: 10,
        cached_input_tokens: 0,
        output_tokens: 5,
      },
    ]);
  });

  it('names the field of a malformed report', () => {
    const field = (format: 'openai_usage_completions' | 'anthropic_usage_report', report: unknown) => {
      try {
        parseUsageReport(format, report);
      } catch (err) {
        return (err as { field?: string }).field;
      }
      return 'no error';
    };
    const hourly = { data: [{ start_time: 1767312000, end_time: 1767315600, results: [] }] };
    expect(field('openai_usage_completions', hourly)).toBe('report.data[0].start_time');
    const negative = structuredClone(OPENAI_USAGE_REPORT);
    negative.data[0]!.results[1]!.output_tokens = -1;
    expect(field('openai_usage_completions', negative)).toBe('report.data[0].results[1].output_tokens');
    const moreCached = structuredClone(OPENAI_USAGE_REPORT);
    moreCached.data[0]!.results[0]!.input_cached_tokens = 2_000_000;
    expect(field('openai_usage_completions', moreCached)).toBe('report.data[0].results[0].input_cached_tokens');
    const fractional = structuredClone(ANTHROPIC_USAGE_REPORT);
    fractional.data[0]!.results[0]!.cache_creation.ephemeral_5m_input_tokens = 1.5;
    expect(field('anthropic_usage_report', fractional)).toBe('report.data[0].results[0].cache_creation.ephemeral_5m_input_tokens');
    expect(field('anthropic_usage_report', { data: 'x' })).toBe('report.data');
  });
});
