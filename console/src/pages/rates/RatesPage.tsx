// The rate estimation table in effect now, USD per million tokens per class; the organization's own
// cards (which replace the standard card of the slug) are marked.
import { useApi } from '../../api/queries.js';
import type { RateItem } from '../../api/types.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { QueryState } from '../../components/QueryState.js';
import { money } from '../../format/money.js';

export function RatesPage() {
  const rates = useApi<{ items: RateItem[] }>('/rates');
  const own = useApi<{ model_slugs: string[] }>('/rates/own');
  const mine = new Set(own.data?.model_slugs ?? []);
  const rate = (v: string | null) => (v === null ? 'not priced' : money(v));
  const columns: Column<RateItem>[] = [
    { id: 'model', header: 'Model slug', value: (r) => r.model_slug },
    {
      id: 'source',
      header: 'Card',
      value: (r) => (mine.has(r.model_slug) ? 'yours' : 'standard'),
      render: (r) => (mine.has(r.model_slug) ? <span className="badge own">yours</span> : <span className="muted">standard</span>),
    },
    { id: 'input', header: 'Input / 1M', kind: 'money', value: (r) => r.input_cost_per_million, render: (r) => rate(r.input_cost_per_million) },
    { id: 'output', header: 'Output / 1M', kind: 'money', value: (r) => r.output_cost_per_million, render: (r) => rate(r.output_cost_per_million) },
    { id: 'cache_creation', header: 'Cache write / 1M', kind: 'money', value: (r) => r.cache_creation_cost_per_million, render: (r) => rate(r.cache_creation_cost_per_million) },
    { id: 'cache_read', header: 'Cache read / 1M', kind: 'money', value: (r) => r.cache_read_cost_per_million, render: (r) => rate(r.cache_read_cost_per_million) },
    { id: 'reasoning', header: 'Reasoning / 1M', kind: 'money', value: (r) => r.reasoning_cost_per_million, render: (r) => rate(r.reasoning_cost_per_million) },
  ];
  return (
    <div className="page" data-page="rates">
      <h1>Rates</h1>
      <p className="muted">USD per million tokens in effect now. A model matches the longest slug that prefixes it. Per-unit rates are not listed.</p>
      <QueryState query={rates} label="rates">
        {(d) => <DataTable name="rates" filter columns={columns} rows={d.items} rowTestId={(r) => r.model_slug} empty="No rate cards." />}
      </QueryState>
    </div>
  );
}
