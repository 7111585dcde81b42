// The rate estimation table in effect now, USD per million tokens per class; the organization's own
// cards (which replace the standard card of the slug) are marked. One-hour cache writes have their
// own column; long-context tiers and other service tiers (batch, flex…) are listed in a second
// table, one row per tier (rate-tiers.ts). Every rate is the API's decimal string, never a float.
import { useApi } from '../../api/queries.js';
import type { RateItem } from '../../api/types.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { QueryState } from '../../components/QueryState.js';
import { count, money } from '../../format/money.js';
import { tierRows, tierSummary, type Rates, type TierRow } from './rate-tiers.js';

const rate = (v: string | null | undefined) => (v === null || v === undefined ? 'not priced' : money(v));

function rateColumns<T extends Rates>(): Column<T>[] {
  const col = (id: string, header: string, pick: (r: T) => string | null | undefined): Column<T> => ({
    id,
    header,
    kind: 'money',
    value: (r) => pick(r) ?? null,
    render: (r) => rate(pick(r)),
  });
  return [
    col('input', 'Input / 1M', (r) => r.input_cost_per_million),
    col('output', 'Output / 1M', (r) => r.output_cost_per_million),
    col('cache_creation', 'Cache write / 1M', (r) => r.cache_creation_cost_per_million),
    col('cache_creation_1h', '1h cache write / 1M', (r) => r.cache_creation_1h_cost_per_million),
    col('cache_read', 'Cache read / 1M', (r) => r.cache_read_cost_per_million),
    col('reasoning', 'Reasoning / 1M', (r) => r.reasoning_cost_per_million),
  ];
}

export function RatesPage() {
  const rates = useApi<{ items: RateItem[] }>('/rates');
  const own = useApi<{ model_slugs: string[] }>('/rates/own');
  const mine = new Set(own.data?.model_slugs ?? []);
  const columns: Column<RateItem>[] = [
    { id: 'model', header: 'Model slug', value: (r) => r.model_slug },
    {
      id: 'source',
      header: 'Card',
      value: (r) => (mine.has(r.model_slug) ? 'yours' : 'standard'),
      render: (r) => (mine.has(r.model_slug) ? <span className="badge own">yours</span> : <span className="muted">standard</span>),
    },
    ...rateColumns<RateItem>(),
    { id: 'tiers', header: 'Tiers', value: (r) => tierSummary(r) },
  ];
  const tierColumns: Column<TierRow>[] = [
    { id: 'model', header: 'Model slug', value: (r) => r.model_slug },
    { id: 'service_tier', header: 'Service tier', value: (r) => r.service_tier },
    {
      id: 'above',
      header: 'Prompt above (tokens)',
      kind: 'number',
      value: (r) => r.above_prompt_tokens,
      render: (r) => (r.above_prompt_tokens === null ? 'any size' : count(r.above_prompt_tokens)),
    },
    ...rateColumns<TierRow>(),
  ];
  return (
    <div className="page" data-page="rates">
      <h1>Rates</h1>
      <p className="muted">
        USD per million tokens in effect now. A model matches the longest slug that prefixes it. Per-unit rates are not listed.
      </p>
      <QueryState query={rates} label="rates">
        {(d) => (
          <>
            <DataTable name="rates" filter columns={columns} rows={d.items} rowTestId={(r) => r.model_slug} empty="No rate cards." />
            <section className="card">
              <h2>Long-context and service tiers</h2>
              <p className="muted">
                Above a context tier's prompt size (input + cache read + cache write tokens), every class of the request is priced at that
                tier's rates. An event sent with a service tier (batch, flex…) is priced at that tier's card; a tier not listed here is
                priced at the standard rates above.
              </p>
              <DataTable
                name="rate-tiers"
                filter
                columns={tierColumns}
                rows={tierRows(d.items)}
                rowTestId={(r) => r.id}
                empty="No tiers."
              />
            </section>
          </>
        )}
      </QueryState>
    </div>
  );
}
