import { describe, expect, it } from 'vitest';
import { parseProviderReport, sumCostLines, type ProviderCostLine } from '../../../reconciliation/provider-reports.js';

const plain = (lines: ProviderCostLine[]) => lines.map((l) => ({ ...l, amount: l.amount.toFixed() }));

describe('parseProviderReport', () => {
  it("reads OpenAI's daily cost buckets by line item and project", () => {
    const page = {
      object: 'page',
      data: [
        {
          object: 'bucket',
          start_time: 1767312000, // 2026-01-02T00:00:00Z
          end_time: 1767398400,
          results: [
            {
              object: 'organization.costs.result',
              amount: { value: 0.06, currency: 'usd' },
              line_item: 'gpt-4o-2024-08-06, input',
              project_id: 'proj_a',
            },
            {
              object: 'organization.costs.result',
              amount: { value: 0.1, currency: 'usd' },
              line_item: 'gpt-4o-2024-08-06, output',
              project_id: 'proj_a',
            },
            { object: 'organization.costs.result', amount: { value: 2, currency: 'usd' }, line_item: null, project_id: null },
          ],
        },
      ],
      has_more: false,
      next_page: null,
    };
    const lines = sumCostLines(parseProviderReport('openai_costs', page));
    // 0.06 + 0.1 = 0.16 exactly (as floats it would be 0.16000000000000000333…).
    expect(plain(lines)).toEqual([
      { date: '2026-01-02', provider: 'openai', model: 'gpt-4o', project: 'proj_a', amount: '0.16' },
      { date: '2026-01-02', provider: 'openai', model: '(all models)', project: '', amount: '2' },
    ]);
  });

  it("reads Anthropic's cost report, whose amounts are cents", () => {
    const report = {
      data: [
        {
          starting_at: '2026-01-02T00:00:00Z',
          ending_at: '2026-01-03T00:00:00Z',
          results: [
            {
              amount: '123.45',
              currency: 'USD',
              model: 'claude-sonnet-4-20250514',
              cost_type: 'tokens',
              workspace_id: 'wrkspc_1',
              description: 'x',
            },
            { amount: '7', currency: 'USD', model: null, cost_type: 'web_search', workspace_id: null },
          ],
        },
      ],
      has_more: false,
      next_page: null,
    };
    expect(plain(parseProviderReport('anthropic_cost_report', report))).toEqual([
      { date: '2026-01-02', provider: 'anthropic', model: 'claude-sonnet-4', project: 'wrkspc_1', amount: '1.2345' },
      { date: '2026-01-02', provider: 'anthropic', model: 'web_search', project: '', amount: '0.07' },
    ]);
  });

  it('reads a CSV with quoted cells and a key column', () => {
    const csv =
      'Date,Provider,Model,Key,Cost\r\n2026-01-02,OpenAI,"gpt-4o, batch",key_1,1.000000000001\n2026-01-02,mistral,mistral-large,,3\n';
    expect(plain(parseProviderReport('csv', csv))).toEqual([
      { date: '2026-01-02', provider: 'openai', model: 'gpt-4o, batch', project: 'key_1', amount: '1.000000000001' },
      { date: '2026-01-02', provider: 'mistral', model: 'mistral-large', project: '', amount: '3' },
    ]);
  });

  it('names the field of a malformed report', () => {
    const field = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return (e as { details?: { field?: string } }).details?.field;
      }
      return 'no error';
    };
    expect(field(() => parseProviderReport('openai_costs', {}))).toBe('report.data');
    const bucket = (over: object) => ({
      data: [{ start_time: 1767312000, end_time: 1767398400, results: [{ amount: { value: 1, currency: 'usd' }, ...over }] }],
    });
    expect(field(() => parseProviderReport('openai_costs', bucket({ amount: { value: 'x', currency: 'usd' } })))).toBe(
      'report.data[0].results[0].amount.value',
    );
    expect(field(() => parseProviderReport('openai_costs', bucket({ amount: { value: 1, currency: 'eur' } })))).toBe(
      'report.data[0].results[0].amount.currency',
    );
    expect(
      field(() => parseProviderReport('openai_costs', { data: [{ start_time: 1767312000, end_time: 1767315600, results: [] }] })),
    ).toBe('report.data[0].start_time');
    expect(
      field(() =>
        parseProviderReport('anthropic_cost_report', {
          data: [{ starting_at: '2026-01-02T00:00:00Z', ending_at: '2026-01-03T00:00:00Z', results: [{ amount: 5, currency: 'USD' }] }],
        }),
      ),
    ).toBe('report.data[0].results[0].amount');
    expect(field(() => parseProviderReport('csv', 'date,provider,cost\n'))).toBe('report.header.model');
    expect(field(() => parseProviderReport('csv', 'date,provider,model,cost\n2026-13-01,openai,gpt-4o,1\n'))).toBe('report.line[2].date');
    expect(field(() => parseProviderReport('csv', 'date,provider,model,cost\n2026-02-30,openai,gpt-4o,1\n'))).toBe('report.line[2].date');
    expect(field(() => parseProviderReport('csv', 'date,provider,model,cost\n2026-01-01,openai,gpt-4o,1e3\n'))).toBe('report.line[2].cost');
  });
});
