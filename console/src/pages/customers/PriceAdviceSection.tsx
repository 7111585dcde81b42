// Price advice beside the margin table: for each customer's current billing period, its plan's
// price, the forecast cost of the period, and the price that reaches a target margin (?target=40)
// under it, with whether the plan does; plans that fall short first (the API's order).
import { Link } from 'wouter';
import { useMarginByEndUser } from '../../api/queries.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { QueryState } from '../../components/QueryState.js';
import { addDays } from '../../format/dates.js';
import { cents, money, percent } from '../../format/money.js';
import { withRange, type DateRange } from '../../range/date-range.js';
import { useUrlParam } from '../../range/url-param.js';
import { priceAdviceRows, type PriceAdviceRow } from './customers.js';
import { usePriceAdvice } from './customers.queries.js';

const TARGETS = ['20', '30', '40', '50', '60', '70'];

export function PriceAdviceSection({ range }: { range: DateRange }) {
  const [target, setTarget] = useUrlParam('target', '40');
  const advice = usePriceAdvice(target);
  const margin = useMarginByEndUser(range);
  const columns: Column<PriceAdviceRow>[] = [
    {
      id: 'customer',
      header: 'Customer',
      value: (r) => r.end_user_name,
      render: (r) => <Link href={withRange(`/customers/${r.end_user_id}`, range)}>{r.end_user_name}</Link>,
    },
    // The API's period end is exclusive; people read a period by its last day.
    { id: 'period', header: 'Billing period', value: (r) => `${r.period_start} – ${addDays(r.period_end, -1)}` },
    { id: 'price', header: 'Plan price', kind: 'money', value: (r) => r.current_price, render: (r) => money(r.current_price) },
    {
      id: 'forecast_cost',
      header: 'Forecast cost',
      kind: 'money',
      value: (r) => r.forecast_cost.value,
      render: (r) => (
        <span title={`exactly ${money(r.forecast_cost.value)}; likely ${cents(r.forecast_cost.low)} – ${cents(r.forecast_cost.high)}`}>
          {cents(r.forecast_cost.value)}
        </span>
      ),
    },
    {
      id: 'forecast_margin',
      header: 'Forecast margin %',
      kind: 'number',
      value: (r) => r.forecast_margin_percent,
      render: (r) => percent(r.forecast_margin_percent),
    },
    {
      id: 'required_price',
      header: `Price for ${target}%`,
      kind: 'money',
      value: (r) => r.required_price,
      render: (r) => money(r.required_price),
    },
    {
      id: 'verdict',
      header: 'Plan',
      value: (r) => (r.reaches_target ? 'reaches target' : 'falls short'),
      render: (r) => (
        <span className={`badge ${r.reaches_target ? 'profitable' : 'unprofitable'}`}>
          {r.reaches_target ? 'reaches target' : 'falls short'}
        </span>
      ),
    },
  ];
  return (
    // The customers table above is not a card: keep the card's own spacing above it too.
    <section className="card" data-card="price-advice" style={{ marginTop: 14 }}>
      <div className="card-head">
        <h2>Price advice</h2>
        <label>
          target margin{' '}
          <select aria-label="Target margin" value={target} onChange={(e) => setTarget(e.target.value)}>
            {(TARGETS.includes(target) ? TARGETS : [...TARGETS, target]).map((t) => (
              <option key={t} value={t}>
                {t}%
              </option>
            ))}
          </select>
        </label>
      </div>
      <QueryState query={advice} label="price advice">
        {(a) => (
          <DataTable
            name="price-advice"
            columns={columns}
            rows={priceAdviceRows(a.customers, margin.data?.end_users ?? null)}
            rowTestId={(r) => r.end_user_id}
            empty="No customer has a billing period covering today: import revenue records or connect Stripe to get price advice."
          />
        )}
      </QueryState>
      <div className="muted">
        Each customer's current billing period (from its revenue records), not the page's date range: cost so far plus the forecast of the
        period's remaining days; the price that reaches the target is rounded up to the cent.
      </div>
    </section>
  );
}
