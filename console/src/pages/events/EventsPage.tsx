// Usage events in the range, newest first, 50 a page, filtered by metric (the metrics come from
// /usage/summary). The API allows at most 90 days here and says so.
import { useApi } from '../../api/queries.js';
import type { UsageEvent, UsageEventPage, UsageSummary } from '../../api/types.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { QueryState } from '../../components/QueryState.js';
import { dateTime } from '../../format/dates.js';
import { count } from '../../format/money.js';
import { rangeQuery, useDateRange } from '../../range/date-range.js';
import { useUrlParam } from '../../range/url-param.js';
import { Pager } from '../../components/Pager.js';

const PAGE = 50;

const columns: Column<UsageEvent>[] = [
  { id: 'time', header: 'Time', value: (r) => r.event_timestamp, render: (r) => dateTime(r.event_timestamp) },
  { id: 'metric', header: 'Metric', value: (r) => r.metric_name },
  { id: 'quantity', header: 'Quantity', kind: 'number', value: (r) => r.quantity, render: (r) => count(r.quantity) },
  { id: 'provider', header: 'Provider', value: (r) => r.metadata?.provider ?? null },
  { id: 'agent', header: 'Agent', value: (r) => r.metadata?.agent_id ?? null },
  {
    id: 'metadata',
    header: 'Metadata',
    value: (r) => JSON.stringify(r.metadata ?? {}),
    render: (r) => <code className="meta">{JSON.stringify(r.metadata ?? {})}</code>,
  },
  { id: 'id', header: 'Event id', value: (r) => r.id, render: (r) => <code>{r.id}</code> },
];

export function EventsPage() {
  const range = useDateRange();
  const [metric, setMetric] = useUrlParam('metric', '');
  const [offsetText, setOffset] = useUrlParam('offset', '0');
  const offset = Math.max(0, Number(offsetText) || 0);
  const summary = useApi<UsageSummary>('/usage/summary', rangeQuery(range));
  const page = useApi<UsageEventPage>('/usage/events', { ...rangeQuery(range), metric_name: metric || undefined, limit: PAGE, offset });
  return (
    <div className="page" data-page="events">
      <div className="card-head">
        <h1>Events</h1>
        <select
          aria-label="Metric"
          value={metric}
          onChange={(e) => {
            setMetric(e.target.value || null);
          }}
        >
          <option value="">all metrics</option>
          {(summary.data?.metrics ?? []).map((m) => (
            <option key={m.metric_name} value={m.metric_name}>
              {m.metric_name} ({count(m.event_count)})
            </option>
          ))}
        </select>
      </div>
      <QueryState query={page} label="events">
        {(d) => (
          <>
            <DataTable
              name="events"
              columns={columns}
              rows={d.events}
              rowTestId={(r) => r.id}
              empty={
                <>
                  No events in this range. Send one with <code>POST /v1/usage-events</code> (README, "Sending events").
                </>
              }
            />
            <Pager offset={offset} limit={PAGE} total={d.total} onOffset={(o) => setOffset(String(o))} />
          </>
        )}
      </QueryState>
    </div>
  );
}
