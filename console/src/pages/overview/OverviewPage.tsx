// Overview: headline figures with their change, the month-end forecast, cost over time stacked by
// model or provider with the range's cost anomalies marked, top customers and agents, and warnings
// (events waiting for a rate card, revenue not connected).
import { Link } from 'wouter';
import { useByAgent, useCostByEndUser, useCostTrend, useMarginByEndUser, useMarginSummary } from '../../api/queries.js';
import type { CostBreakdownItem } from '../../api/types.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { Kpi } from '../../components/Kpi.js';
import { ErrorNote, QueryState } from '../../components/QueryState.js';
import { costSeriesChart, TimeChart } from '../../components/TimeChart.js';
import { cents, count, exactly, money, percent } from '../../format/money.js';
import { previousRange, useDateRange, withRange, type DateRange } from '../../range/date-range.js';
import { useUrlParam } from '../../range/url-param.js';
import { WhatIfPanel } from '../what-if/WhatIfPanel.js';
import { ForecastCard } from './ForecastCard.js';
import { anomalyMarkers, anomalyText, change, costTotals, pointsChange, topCustomers, type TopCustomer } from './overview.js';
import { useAnomalies, usePendingRateCards, type Anomaly } from './overview.queries.js';

export function OverviewPage() {
  const range = useDateRange();
  const prev = previousRange(range);
  return (
    <div className="page" data-page="overview">
      <h1>Overview</h1>
      <Warnings range={range} />
      <Headline range={range} prev={prev} />
      <ForecastCard />
      <CostOverTime range={range} />
      <WhatIfPanel range={range} />
      <div className="two-col">
        <TopCustomersSection range={range} />
        <TopAgentsSection range={range} />
      </div>
    </div>
  );
}

function Headline({ range, prev }: { range: DateRange; prev: DateRange }) {
  const cur = useCostByEndUser(range);
  const before = useCostByEndUser(prev);
  // The range's org_total comes with the margin rows the page loads anyway; the previous range
  // needs only its summary.
  const margin = useMarginByEndUser(range);
  const marginBefore = useMarginSummary(prev);
  const c = cur.data ? costTotals(cur.data) : null;
  const p = before.data ? costTotals(before.data) : null;
  const m = margin.data?.org_total;
  const mp = marginBefore.data;
  const revenueState = margin.isError ? <ErrorNote error={margin.error} /> : null;
  return (
    <section className="kpis" aria-busy={cur.isPending || margin.isPending}>
      {cur.isError ? (
        <ErrorNote error={cur.error} />
      ) : !c ? (
        <div className="loading">Loading figures…</div>
      ) : c.events === 0 && cur.data!.end_users.length === 0 ? (
        <div className="empty" data-empty="overview">
          No priced events in this range. Send a first event with <code>POST /v1/usage-events</code> (see the README, "Sending events"), or
          pick a wider range.
        </div>
      ) : null}
      {c && (
        <>
          <Kpi
            id="cost"
            label="Cost"
            value={cents(c.cost)}
            title={exactly(c.cost)}
            change={p && change(c.cost, p.cost)}
            changeGoodWhen="down"
          />
          <Kpi
            id="revenue"
            label="Revenue"
            value={m ? cents(m.total_revenue) : margin.isError ? '—' : '…'}
            title={exactly(m?.total_revenue)}
            change={m && mp ? change(m.total_revenue, mp.total_revenue) : undefined}
            note={revenueState}
          />
          <Kpi
            id="margin"
            label="Gross margin"
            value={m ? cents(m.margin_amount) : margin.isError ? '—' : '…'}
            title={exactly(m?.margin_amount)}
            change={m && mp ? change(m.margin_amount, mp.margin_amount) : undefined}
          />
          <Kpi
            id="margin-percent"
            label="Margin %"
            value={m ? percent(m.margin_percent) : margin.isError ? '—' : '…'}
            change={m && mp ? pointsChange(m.margin_percent, mp.margin_percent) : undefined}
            changeUnit=" pp"
          />
          <Kpi id="events" label="Events" value={count(c.events)} change={p && change(c.events, p.events)} />
          <Kpi id="tokens" label="Tokens (input + output)" value={count(c.tokens)} change={p && change(c.tokens, p.tokens)} />
          <Kpi
            id="cost-per-event"
            label="Cost per event"
            value={money(c.costPerEvent)}
            change={p && change(c.costPerEvent, p.costPerEvent)}
            changeGoodWhen="down"
          />
        </>
      )}
    </section>
  );
}

function CostOverTime({ range }: { range: DateRange }) {
  const [split, setSplit] = useUrlParam('split', 'model');
  const trend = useCostTrend(range, split, 8);
  const anomalies = useAnomalies(range);
  return (
    <section className="card">
      <div className="card-head">
        <h2>Cost over time</h2>
        <label>
          by{' '}
          <select aria-label="Split cost by" value={split} onChange={(e) => setSplit(e.target.value)}>
            <option value="model">model</option>
            <option value="provider">provider</option>
          </select>
        </label>
      </div>
      <QueryState query={trend} label="cost over time">
        {(t) => {
          const { dates, series } = costSeriesChart(t.series, range, t.granularity);
          const items = anomalies.data?.items ?? [];
          return (
            <>
              <TimeChart
                id="cost-over-time"
                dates={dates}
                series={series}
                kind="stacked-bars"
                markers={anomalyMarkers(items, dates, money)}
              />
              <div className="muted">{t.granularity} buckets, UTC; the 8 costliest values, the rest as Other.</div>
              <AnomalyList items={items} />
              {anomalies.isError && <ErrorNote error={anomalies.error} />}
            </>
          );
        }}
      </QueryState>
    </section>
  );
}

/** The spikes the chart marks, in words (dashed red lines on the chart). */
function AnomalyList({ items }: { items: Anomaly[] }) {
  if (items.length === 0) return null;
  return (
    <div data-list="anomalies">
      <b>Cost anomalies</b> (red dashed lines; a day far above the same weekday's usual cost):
      <ul>
        {items.slice(0, 10).map((a) => (
          <li key={`${a.date}/${a.dimension}/${a.value}`} data-anomaly={`${a.date}/${a.dimension}/${a.value}`}>
            {a.date} — {anomalyText(a, money)}
            {a.contributors[0] ? `, mostly ${a.contributors[0].value} (${a.contributors[0].dimension.replace('_', ' ')})` : ''}
          </li>
        ))}
      </ul>
      {items.length > 10 && <div className="muted">and {items.length - 10} more (GET /v1/anomalies).</div>}
    </div>
  );
}

function TopCustomersSection({ range }: { range: DateRange }) {
  const cost = useCostByEndUser(range);
  const margin = useMarginByEndUser(range);
  const columns: Column<TopCustomer>[] = [
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
    { id: 'cost', header: 'Cost', kind: 'money', value: (r) => r.total_cost, render: (r) => money(r.total_cost) },
    { id: 'revenue', header: 'Revenue', kind: 'money', value: (r) => r.revenue, render: (r) => money(r.revenue) },
    { id: 'margin', header: 'Margin', kind: 'money', value: (r) => r.margin_amount, render: (r) => money(r.margin_amount) },
    { id: 'margin_percent', header: 'Margin %', kind: 'number', value: (r) => r.margin_percent, render: (r) => percent(r.margin_percent) },
  ];
  return (
    <section className="card">
      <h2>Top customers by cost</h2>
      {margin.isError && <ErrorNote error={margin.error} />}
      <QueryState query={cost} label="customers">
        {(c) => (
          <DataTable
            name="top-customers"
            columns={columns}
            rows={topCustomers(c, margin.data?.end_users ?? null)}
            rowTestId={(r) => r.end_user_id}
            empty="No customer cost in this range."
          />
        )}
      </QueryState>
    </section>
  );
}

function TopAgentsSection({ range }: { range: DateRange }) {
  const agents = useByAgent(range);
  const columns: Column<CostBreakdownItem>[] = [
    { id: 'agent', header: 'Agent', value: (r) => r.attribution_value },
    { id: 'cost', header: 'Cost', kind: 'money', value: (r) => r.total_cost, render: (r) => money(r.total_cost) },
    { id: 'events', header: 'Events', kind: 'number', value: (r) => r.event_count, render: (r) => count(r.event_count) },
    { id: 'share', header: 'Share', kind: 'number', value: (r) => r.percent_of_total, render: (r) => percent(r.percent_of_total) },
  ];
  return (
    <section className="card">
      <h2>Top agents</h2>
      <QueryState query={agents} label="agents">
        {(a) => (
          <DataTable
            name="top-agents"
            columns={columns}
            rows={a.items.slice(0, 10)}
            rowTestId={(r) => r.attribution_value}
            empty="No agent cost in this range."
          />
        )}
      </QueryState>
    </section>
  );
}

function Warnings({ range }: { range: DateRange }) {
  const pending = usePendingRateCards(range);
  const margin = useMarginByEndUser(range);
  const notConnected = margin.data?.warnings.find((w) => w.type === 'revenue_not_connected');
  return (
    <div className="warnings">
      {pending.data && pending.data.total_events > 0 && (
        <div className="note warning" data-warning="pending-rate-card">
          {count(pending.data.total_events)} events are waiting for a rate card:{' '}
          {pending.data.items.map((i) => `${i.model ?? i.provider ?? 'unknown'} (${count(i.event_count)})`).join(', ')}. Add a rate card for
          these models and they are priced. <Link href={withRange('/rates', range)}>Rates</Link>
        </div>
      )}
      {notConnected && (
        <div className="note warning" data-warning="revenue-not-connected">
          {notConnected.message} Revenue and margins read from cost alone until revenue records are imported or Stripe is connected (README,
          "Connecting revenue").
        </div>
      )}
    </div>
  );
}
