// Customers: every end user with cost, revenue, margin, margin % and profitability; sortable and
// filterable, least profitable first (the margin API's order) by default; price advice beside it.
import { Link } from 'wouter';
import { useCostByEndUser, useMarginByEndUser } from '../../api/queries.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { ErrorNote, QueryState } from '../../components/QueryState.js';
import { count, money, percent } from '../../format/money.js';
import { useDateRange, withRange } from '../../range/date-range.js';
import { customerRows, type CustomerRow } from './customers.js';
import { PriceAdviceSection } from './PriceAdviceSection.js';

export function CustomersPage() {
  const range = useDateRange();
  const cost = useCostByEndUser(range);
  const margin = useMarginByEndUser(range);
  const columns: Column<CustomerRow>[] = [
    {
      id: 'customer',
      header: 'Customer',
      value: (r) => r.end_user_name,
      render: (r) =>
        r.end_user_id === 'unassigned' ? (
          r.end_user_name
        ) : (
          <Link href={withRange(`/customers/${r.end_user_id}`, range)}>{r.end_user_name}</Link>
        ),
    },
    { id: 'cost', header: 'Cost', kind: 'money', value: (r) => r.cost, render: (r) => money(r.cost) },
    { id: 'revenue', header: 'Revenue', kind: 'money', value: (r) => r.revenue, render: (r) => money(r.revenue) },
    { id: 'margin', header: 'Margin', kind: 'money', value: (r) => r.margin_amount, render: (r) => money(r.margin_amount) },
    { id: 'margin_percent', header: 'Margin %', kind: 'number', value: (r) => r.margin_percent, render: (r) => percent(r.margin_percent) },
    {
      id: 'profitability',
      header: 'Profitability',
      value: (r) => r.profitability,
      render: (r) => (r.profitability ? <span className={`badge ${r.profitability}`}>{r.profitability}</span> : '—'),
    },
    { id: 'events', header: 'Events', kind: 'number', value: (r) => r.event_count, render: (r) => count(r.event_count) },
  ];
  return (
    <div className="page" data-page="customers">
      <h1>Customers</h1>
      {margin.isError && <ErrorNote error={margin.error} />}
      <QueryState query={cost} label="customers">
        {(c) =>
          margin.isPending ? (
            <div className="loading">Loading margins…</div>
          ) : (
            <DataTable
              name="customers"
              filter
              columns={columns}
              rows={customerRows(c, margin.data?.end_users ?? null)}
              rowTestId={(r) => r.end_user_id}
              empty={
                <>
                  No customers in this range. Send events with a <code>user_id</code> to attribute cost to your customers.
                </>
              }
            />
          )
        }
      </QueryState>
      <PriceAdviceSection range={range} />
    </div>
  );
}
