// One session's call tree as a waterfall: a row per span indented by depth, a bar on the run's time
// axis, own and subtree cost, the API's markers, and the untraced and withheld remainders.
import { useApi } from '../../api/queries.js';
import type { SessionTree } from '../../api/types.js';
import { downloadCsv, toCsv } from '../../components/csv.js';
import { QueryState } from '../../components/QueryState.js';
import { dateTime, durationMs } from '../../format/dates.js';
import { count, money, sumMoney } from '../../format/money.js';
import { markers, waterfall } from './waterfall.js';

export function SessionPage({ params }: { params: { sessionId: string } }) {
  const sessionId = decodeURIComponent(params.sessionId);
  const tree = useApi<SessionTree>(`/attribution-data/sessions/${encodeURIComponent(sessionId)}/tree`);
  return (
    <div className="page" data-page="session">
      <h1>
        Session <code>{sessionId}</code>
      </h1>
      <QueryState query={tree} label="call tree">
        {(t) => <WaterfallView tree={t} />}
      </QueryState>
    </div>
  );
}

function WaterfallView({ tree }: { tree: SessionTree }) {
  const w = waterfall(tree);
  const total = sumMoney([...tree.roots.map((r) => r.subtree_cost), tree.untraced.total_cost, tree.withheld.total_cost]);
  const download = () =>
    downloadCsv(
      `session-${tree.session_id}.csv`,
      toCsv(
        [
          'span_id',
          'parent_span_id',
          'depth',
          'name',
          'kind',
          'agent_id',
          'started_at',
          'duration_ms',
          'own_cost',
          'subtree_cost',
          'event_count',
          'markers',
        ],
        w.rows.map(({ node: n }) => [
          n.span_id,
          n.parent_span_id,
          n.depth,
          n.name,
          n.kind,
          n.agent_id,
          n.started_at,
          n.duration_ms,
          n.own_cost,
          n.subtree_cost,
          n.event_count,
          markers(n).join(' '),
        ]),
      ),
    );
  return (
    <>
      <section className="kpis">
        <div className="kpi" data-kpi="session-cost">
          <div className="kpi-label">Session cost</div>
          <div className="kpi-value" data-value>
            {money(total)}
          </div>
        </div>
        <div className="kpi" data-kpi="spans">
          <div className="kpi-label">Spans</div>
          <div className="kpi-value" data-value>
            {count(tree.span_count)}
          </div>
        </div>
        <div className="kpi" data-kpi="wall">
          <div className="kpi-label">Run wall time</div>
          <div className="kpi-value" data-value>
            {durationMs(tree.run_wall_ms)}
          </div>
        </div>
      </section>
      {tree.truncated && (
        <div className="note warning" data-marker="withheld">
          The session has {count(tree.span_count)} spans; the earliest {count(tree.node_limit)} are drawn. {count(tree.withheld.span_count)}{' '}
          spans ({count(tree.withheld.event_count)} events, {money(tree.withheld.total_cost)}) are withheld.
        </div>
      )}
      <section className="card">
        <div className="table-toolbar">
          <span className="muted">
            {w.startMs !== null
              ? `Axis: ${dateTime(new Date(w.startMs).toISOString())} + ${durationMs(w.spanMs)}`
              : 'No span has complete timing; bars are not drawn.'}
          </span>
          <button type="button" onClick={download}>
            Download CSV
          </button>
        </div>
        <div className="waterfall" data-table="waterfall">
          <div className="wf-row wf-head">
            <div className="wf-name">Span</div>
            <div className="wf-bar-cell">Timeline</div>
            <div className="wf-num">Duration</div>
            <div className="wf-num">Own cost</div>
            <div className="wf-num">Subtree cost</div>
          </div>
          {w.rows.map(({ node: n, depth, left, width }) => (
            <div className="wf-row" key={`${n.span_id}-${depth}`} data-span={n.span_id}>
              <div className="wf-name" style={{ paddingLeft: `${depth * 16 + 4}px` }} title={n.span_id}>
                <span className={`kind kind-${n.kind ?? 'none'}`}>{n.kind ?? '—'}</span> {n.name ?? n.span_id}
                {markers(n).map((m) => (
                  <span key={m} className="marker" data-marker={m}>
                    {m}
                  </span>
                ))}
              </div>
              <div className="wf-bar-cell">
                {left !== null && width !== null ? (
                  <div
                    className={`wf-bar kind-${n.kind ?? 'none'}`}
                    style={{ left: `${left}%`, width: `${Math.min(width, 100 - left)}%` }}
                  />
                ) : (
                  <span className="muted">no timing</span>
                )}
              </div>
              <div className="wf-num">{durationMs(n.duration_ms)}</div>
              <div className="wf-num" data-col="own_cost">
                {money(n.own_cost)}
              </div>
              <div className="wf-num" data-col="subtree_cost">
                {money(n.subtree_cost)}
              </div>
            </div>
          ))}
          {tree.untraced.event_count > 0 && (
            <div className="wf-row wf-extra" data-marker="untraced">
              <div className="wf-name">Untraced events ({count(tree.untraced.event_count)}, no span_id)</div>
              <div className="wf-bar-cell" />
              <div className="wf-num" />
              <div className="wf-num" data-col="own_cost">
                {money(tree.untraced.total_cost)}
              </div>
              <div className="wf-num" />
            </div>
          )}
        </div>
      </section>
    </>
  );
}
