// Dimensions: every defined dimension; for a string dimension its cost breakdown and the top-5
// cost trend, for a number dimension its numeric trend (sum, avg, min or max) and summary.
import { useApi } from '../../api/queries.js';
import type { DimensionBreakdown, DimensionDefinition, DimensionDefinitions, NumericTrend, SeriesResponse } from '../../api/types.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { Kpi } from '../../components/Kpi.js';
import { QueryState } from '../../components/QueryState.js';
import { alignSeries, costSeriesChart, TimeChart } from '../../components/TimeChart.js';
import { count, money, percent } from '../../format/money.js';
import { bucketStarts, rangeQuery, useDateRange, type DateRange } from '../../range/date-range.js';
import { useUrlParam } from '../../range/url-param.js';

const defColumns: Column<DimensionDefinition>[] = [
  { id: 'key', header: 'Key', value: (r) => r.key },
  { id: 'name', header: 'Name', value: (r) => r.name },
  { id: 'type', header: 'Type', value: (r) => r.value_type },
  { id: 'required', header: 'Required', value: (r) => (r.is_required ? 'yes' : 'no') },
  { id: 'description', header: 'Description', value: (r) => r.description ?? '' },
];

export function DimensionsPage() {
  const defs = useApi<DimensionDefinitions>('/dimension-data/definitions');
  const range = useDateRange();
  const [selected, select] = useUrlParam('dimension', '');
  return (
    <div className="page" data-page="dimensions">
      <h1>Dimensions</h1>
      <QueryState query={defs} label="dimensions">
        {(d) => {
          if (d.dimensions.length === 0) {
            return (
              <div className="empty">
                No dimensions defined. Define one (admin API: POST /v1/admin/organizations/&#123;org&#125;/dimensions) to break cost down by
                a metadata key.
              </div>
            );
          }
          const current = d.dimensions.find((x) => x.key === selected) ?? d.dimensions[0]!;
          return (
            <>
              <section className="card">
                <DataTable name="dimensions" columns={defColumns} rows={d.dimensions} rowTestId={(r) => r.key} />
              </section>
              <div className="card-head">
                <h2>Dimension</h2>
                <select aria-label="Dimension" value={current.key} onChange={(e) => select(e.target.value)}>
                  {d.dimensions.map((x) => (
                    <option key={x.key} value={x.key}>
                      {x.name} ({x.key})
                    </option>
                  ))}
                </select>
              </div>
              {current.value_type === 'string' ? (
                <StringDimension dim={current} range={range} />
              ) : (
                <NumberDimension dim={current} range={range} />
              )}
            </>
          );
        }}
      </QueryState>
    </div>
  );
}

type BreakdownItem = DimensionBreakdown['items'][number];
const breakdownColumns: Column<BreakdownItem>[] = [
  { id: 'value', header: 'Value', value: (r) => r.dimension_value },
  { id: 'cost', header: 'Cost', kind: 'money', value: (r) => r.total_cost, render: (r) => money(r.total_cost) },
  { id: 'events', header: 'Events', kind: 'number', value: (r) => r.event_count, render: (r) => count(r.event_count) },
  { id: 'share', header: 'Share of cost', kind: 'number', value: (r) => r.percent_of_total, render: (r) => percent(r.percent_of_total) },
];

function StringDimension({ dim, range }: { dim: DimensionDefinition; range: DateRange }) {
  const q = { ...rangeQuery(range), dimension_key: dim.key };
  const breakdown = useApi<DimensionBreakdown>('/dimension-data/cost-breakdown', q);
  const trend = useApi<SeriesResponse>('/dimension-data/cost-trend', q);
  return (
    <div className="two-col">
      <section className="card">
        <h2>Cost by {dim.name}</h2>
        <QueryState query={breakdown} label="breakdown">
          {(b) => (
            <DataTable
              name={`dimension-${dim.key}`}
              filter
              columns={breakdownColumns}
              rows={b.items}
              rowTestId={(r) => r.dimension_value}
            />
          )}
        </QueryState>
      </section>
      <section className="card">
        <h2>Top 5 values over time</h2>
        <QueryState query={trend} label="trend">
          {(t) => {
            const a = costSeriesChart(t.series, range, t.granularity);
            return <TimeChart id="dimension-trend" dates={a.dates} series={a.series} kind="stacked-bars" />;
          }}
        </QueryState>
      </section>
    </div>
  );
}

function NumberDimension({ dim, range }: { dim: DimensionDefinition; range: DateRange }) {
  const [aggregation, setAggregation] = useUrlParam('aggregation', 'sum');
  const q = { ...rangeQuery(range), dimension_key: dim.key };
  const trend = useApi<NumericTrend>('/dimension-data/numeric-trend', { ...q, aggregation });
  const summary = useApi<{ event_count: number; sum: string | null; avg: string | null; min: string | null; max: string | null }>(
    '/dimension-data/numeric-summary',
    q,
  );
  const plain = (v: string | null) => (v === null ? '—' : v);
  return (
    <>
      <QueryState query={summary} label="summary">
        {(s) => (
          <section className="kpis">
            <Kpi id="num-events" label="Events with a value" value={count(s.event_count)} />
            <Kpi id="num-sum" label="Sum" value={plain(s.sum)} />
            <Kpi id="num-avg" label="Average" value={plain(s.avg)} />
            <Kpi id="num-min" label="Minimum" value={plain(s.min)} />
            <Kpi id="num-max" label="Maximum" value={plain(s.max)} />
          </section>
        )}
      </QueryState>
      <section className="card">
        <div className="card-head">
          <h2>{dim.name} over time</h2>
          <select aria-label="Aggregation" value={aggregation} onChange={(e) => setAggregation(e.target.value)}>
            {['sum', 'avg', 'min', 'max'].map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </div>
        <QueryState query={trend} label="trend">
          {(t) => {
            const a = alignSeries(
              [{ label: aggregation, points: t.data_points.map((p) => ({ date: p.date, value: p.value })) }],
              bucketStarts(range, t.granularity),
            );
            return (
              <>
                <TimeChart id="numeric-trend" dates={a.dates} series={a.series} kind="lines" format={plain} />
                <DataTable
                  name={`numeric-${dim.key}-${aggregation}`}
                  columns={[
                    { id: 'date', header: 'Bucket', value: (r) => r.date.slice(0, 10) },
                    { id: 'value', header: aggregation, kind: 'money', value: (r) => r.value },
                    { id: 'events', header: 'Events', kind: 'number', value: (r) => r.event_count },
                  ]}
                  rows={t.data_points}
                />
              </>
            );
          }}
        </QueryState>
      </section>
    </>
  );
}
