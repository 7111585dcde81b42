// Sessions active in the range, most recent first, with whole-session totals; paged 50 at a time.
import { Link } from 'wouter';
import { useApi } from '../../api/queries.js';
import type { SessionList, SessionSummary } from '../../api/types.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { QueryState } from '../../components/QueryState.js';
import { dateTime } from '../../format/dates.js';
import { count, money } from '../../format/money.js';
import { rangeQuery, useDateRange, withRange } from '../../range/date-range.js';
import { useUrlParam } from '../../range/url-param.js';
import { Pager } from '../../components/Pager.js';

const PAGE = 50;

export function SessionsPage() {
  const range = useDateRange();
  const [offsetText, setOffset] = useUrlParam('offset', '0');
  const offset = Math.max(0, Number(offsetText) || 0);
  const list = useApi<SessionList>('/attribution-data/sessions', { ...rangeQuery(range), limit: PAGE, offset });
  const columns: Column<SessionSummary>[] = [
    {
      id: 'session',
      header: 'Session',
      value: (r) => r.session_id,
      render: (r) => <Link href={withRange(`/sessions/${encodeURIComponent(r.session_id)}`, range)}>{r.session_id}</Link>,
    },
    { id: 'cost', header: 'Cost', kind: 'money', value: (r) => r.total_cost, render: (r) => money(r.total_cost) },
    { id: 'events', header: 'Events', kind: 'number', value: (r) => r.event_count, render: (r) => count(r.event_count) },
    { id: 'spans', header: 'Spans', kind: 'number', value: (r) => r.span_count, render: (r) => count(r.span_count) },
    {
      id: 'untraced',
      header: 'Untraced events',
      kind: 'number',
      value: (r) => r.untraced_event_count,
      render: (r) => count(r.untraced_event_count),
    },
    { id: 'first', header: 'First event', value: (r) => r.first_event_at, render: (r) => dateTime(r.first_event_at) },
    { id: 'last', header: 'Last event', value: (r) => r.last_event_at, render: (r) => dateTime(r.last_event_at) },
  ];
  return (
    <div className="page" data-page="sessions">
      <h1>Sessions</h1>
      <QueryState query={list} label="sessions">
        {(d) => (
          <>
            <DataTable
              name="sessions"
              filter
              columns={columns}
              rows={d.sessions}
              rowTestId={(r) => r.session_id}
              empty={
                <>
                  No sessions in this range. Send <code>session_id</code> and <code>span_id</code> (with <code>parent_span_id</code>,{' '}
                  <code>started_at</code>) on events to trace runs.
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
