// One customer: totals, cost trend, margin trend, cost by model, by provider and by any dimension.
// The URL names the internal end_user_id; /v1/end-users gives the external id the
// /end-user-costs endpoints take.
import { useApi, useEndUser } from '../../api/queries.js';
import type { ByDimension, DimensionDefinitions, EndUserSummary, MarginTrend, SeriesResponse } from '../../api/types.js';
import type { CostBreakdownItem, SessionList, SessionSummary } from '../../api/types.js';
import { Link } from 'wouter';
import { dateTime } from '../../format/dates.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { Kpi } from '../../components/Kpi.js';
import { QueryState } from '../../components/QueryState.js';
import { alignSeries, costSeriesChart, TimeChart } from '../../components/TimeChart.js';
import { cents, count, exactly, money, percent } from '../../format/money.js';
import { bucketStarts, rangeQuery, useDateRange, withRange, type DateRange } from '../../range/date-range.js';
import { useUrlParam } from '../../range/url-param.js';
import { WhatIfPanel } from '../what-if/WhatIfPanel.js';

export function CustomerPage({ params }: { params: { endUserId: string } }) {
  const users = useEndUser(params.endUserId);
  return (
    <div className="page" data-page="customer">
      <QueryState query={users} label="customer">
        {(d) => {
          const user = d.end_users.find((u) => u.end_user_id === params.endUserId);
          if (!user) return <div className="note">No end user {params.endUserId} in this organization.</div>;
          return <CustomerView externalId={user.external_id} endUserId={user.end_user_id} name={user.end_user_name} />;
        }}
      </QueryState>
    </div>
  );
}

const breakdownColumns = (label: string): Column<CostBreakdownItem>[] => [
  { id: 'value', header: label, value: (r) => r.attribution_value },
  { id: 'cost', header: 'Cost', kind: 'money', value: (r) => r.total_cost, render: (r) => money(r.total_cost) },
  { id: 'events', header: 'Events', kind: 'number', value: (r) => r.event_count, render: (r) => count(r.event_count) },
  { id: 'input_tokens', header: 'Input tokens', kind: 'number', value: (r) => r.input_tokens, render: (r) => count(r.input_tokens) },
  { id: 'output_tokens', header: 'Output tokens', kind: 'number', value: (r) => r.output_tokens, render: (r) => count(r.output_tokens) },
  { id: 'share', header: 'Share', kind: 'number', value: (r) => r.percent_of_total, render: (r) => percent(r.percent_of_total) },
];

function CustomerView({ externalId, endUserId, name }: { externalId: string; endUserId: string; name: string }) {
  const range = useDateRange();
  const base = `/end-user-costs/${encodeURIComponent(externalId)}`;
  const summary = useApi<EndUserSummary>(`${base}/summary`, rangeQuery(range));
  const trend = useApi<SeriesResponse>(`${base}/trend`, rangeQuery(range));
  const marginTrend = useApi<MarginTrend>('/margin-data/trend', { ...rangeQuery(range), end_user_id: endUserId });
  const byModel = useApi<ByDimension>(`${base}/by-model`, rangeQuery(range));
  const byProvider = useApi<ByDimension>(`${base}/by-provider`, rangeQuery(range));
  return (
    <>
      <h1>
        {name} <span className="muted">({externalId})</span>
      </h1>
      <QueryState query={summary} label="totals">
        {(s) => (
          <section className="kpis">
            <Kpi id="cost" label="Cost" value={cents(s.total_cost)} title={exactly(s.total_cost)} />
            <Kpi id="events" label="Events" value={count(s.event_count)} />
            <Kpi id="tokens" label="Tokens (input + output)" value={count(s.input_tokens + s.output_tokens)} />
          </section>
        )}
      </QueryState>
      <div className="two-col">
        <section className="card">
          <h2>Cost trend</h2>
          <QueryState query={trend} label="cost trend">
            {(t) => {
              const a = costSeriesChart(
                t.series.map((s) => ({ ...s, label: 'Cost' })),
                range,
                t.granularity,
              );
              return <TimeChart id="customer-cost" dates={a.dates} series={a.series} kind="stacked-bars" height={200} />;
            }}
          </QueryState>
        </section>
        <section className="card">
          <h2>Margin trend</h2>
          <QueryState query={marginTrend} label="margin trend">
            {(t) => {
              const pts = (f: 'revenue' | 'cost' | 'margin_amount') => t.data_points.map((p) => ({ date: p.date, value: p[f] }));
              const a = alignSeries(
                [
                  { label: 'Revenue', points: pts('revenue') },
                  { label: 'Cost', points: pts('cost') },
                  { label: 'Margin', points: pts('margin_amount') },
                ],
                bucketStarts(range, t.granularity),
              );
              return <TimeChart id="customer-margin" dates={a.dates} series={a.series} kind="lines" height={200} />;
            }}
          </QueryState>
        </section>
      </div>
      <div className="two-col">
        <section className="card">
          <h2>By model</h2>
          <QueryState query={byModel} label="cost by model">
            {(d) => (
              <DataTable
                name="customer-by-model"
                columns={breakdownColumns('Model')}
                rows={d.items}
                rowTestId={(r) => r.attribution_value}
              />
            )}
          </QueryState>
        </section>
        <section className="card">
          <h2>By provider</h2>
          <QueryState query={byProvider} label="cost by provider">
            {(d) => (
              <DataTable
                name="customer-by-provider"
                columns={breakdownColumns('Provider')}
                rows={d.items}
                rowTestId={(r) => r.attribution_value}
              />
            )}
          </QueryState>
        </section>
      </div>
      <WhatIfPanel range={range} customer={{ endUserId, externalId }} />
      <ByAnyDimension base={base} range={range} />
      <CustomerSessions base={base} range={range} />
    </>
  );
}

function CustomerSessions({ base, range }: { base: string; range: DateRange }) {
  const sessions = useApi<SessionList>(`${base}/sessions`, { ...rangeQuery(range), limit: 100 });
  const columns: Column<SessionSummary>[] = [
    {
      id: 'session',
      header: 'Session',
      value: (r) => r.session_id,
      render: (r) => <Link href={withRange(`/sessions/${encodeURIComponent(r.session_id)}`, range)}>{r.session_id}</Link>,
    },
    { id: 'cost', header: 'Session cost', kind: 'money', value: (r) => r.total_cost, render: (r) => money(r.total_cost) },
    { id: 'events', header: 'Events', kind: 'number', value: (r) => r.event_count, render: (r) => count(r.event_count) },
    { id: 'spans', header: 'Spans', kind: 'number', value: (r) => r.span_count, render: (r) => count(r.span_count) },
    { id: 'last', header: 'Last event', value: (r) => r.last_event_at, render: (r) => dateTime(r.last_event_at) },
  ];
  return (
    <section className="card">
      <h2>Sessions</h2>
      <QueryState query={sessions} label="sessions">
        {(d) => (
          <>
            <DataTable
              name="customer-sessions"
              columns={columns}
              rows={d.sessions}
              rowTestId={(r) => r.session_id}
              empty="No sessions of this customer in this range."
            />
            {d.total > d.sessions.length && (
              <div className="muted">
                The {d.sessions.length} most recent of {count(d.total)} sessions.
              </div>
            )}
          </>
        )}
      </QueryState>
    </section>
  );
}

function ByAnyDimension({ base, range }: { base: string; range: DateRange }) {
  const defs = useApi<DimensionDefinitions>('/dimension-data/definitions');
  const [dimension, setDimension] = useUrlParam('dimension', 'feature');
  const data = useApi<ByDimension>(`${base}/by-dimension`, { ...rangeQuery(range), dimension });
  const keys = ['feature', 'agent_id', 'workflow_id', ...(defs.data?.dimensions.map((d) => d.key) ?? [])];
  return (
    <section className="card">
      <div className="card-head">
        <h2>By dimension</h2>
        <select aria-label="Dimension" value={dimension} onChange={(e) => setDimension(e.target.value)}>
          {[...new Set([...keys, dimension])].map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </div>
      <QueryState query={data} label="cost by dimension">
        {(d) => (
          <DataTable
            name={`customer-by-${dimension}`}
            columns={breakdownColumns(dimension)}
            rows={d.items}
            rowTestId={(r) => r.attribution_value}
          />
        )}
      </QueryState>
    </section>
  );
}
