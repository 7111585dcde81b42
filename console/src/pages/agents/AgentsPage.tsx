// Agents and workflows: cost by agent and by workflow, and the distinct values seen in the range.
import { useApi, useByAgent } from '../../api/queries.js';
import type { ByDimension, CostBreakdownItem, DistinctValues } from '../../api/types.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { QueryState } from '../../components/QueryState.js';
import { count, money, percent } from '../../format/money.js';
import { rangeQuery, useDateRange } from '../../range/date-range.js';

const columns = (label: string): Column<CostBreakdownItem>[] => [
  { id: 'value', header: label, value: (r) => r.attribution_value },
  { id: 'cost', header: 'Cost', kind: 'money', value: (r) => r.total_cost, render: (r) => money(r.total_cost) },
  { id: 'events', header: 'Events', kind: 'number', value: (r) => r.event_count, render: (r) => count(r.event_count) },
  { id: 'input_tokens', header: 'Input tokens', kind: 'number', value: (r) => r.input_tokens, render: (r) => count(r.input_tokens) },
  { id: 'output_tokens', header: 'Output tokens', kind: 'number', value: (r) => r.output_tokens, render: (r) => count(r.output_tokens) },
  { id: 'share', header: 'Share', kind: 'number', value: (r) => r.percent_of_total, render: (r) => percent(r.percent_of_total) },
];

const valueColumns: Column<{ value: string }>[] = [{ id: 'value', header: 'Value', value: (r) => r.value }];

export function AgentsPage() {
  const range = useDateRange();
  const q = rangeQuery(range);
  const byAgent = useByAgent(range);
  const byWorkflow = useApi<ByDimension>('/attribution-data/by-dimension', { ...q, dimension: 'workflow_id' });
  const agents = useApi<DistinctValues>('/attribution-data/agents', q);
  const workflows = useApi<DistinctValues>('/attribution-data/workflows', q);
  const hint = (
    <>
      No cost here in this range. Send <code>agent_id</code> / <code>workflow_id</code> on events to attribute cost.
    </>
  );
  return (
    <div className="page" data-page="agents">
      <h1>Agents and workflows</h1>
      <div className="two-col">
        <section className="card">
          <h2>Cost by agent</h2>
          <QueryState query={byAgent} label="agents">
            {(d) => (
              <>
                <DataTable
                  name="cost-by-agent"
                  filter
                  columns={columns('Agent')}
                  rows={d.items}
                  initialSort={{ id: 'cost', desc: true }}
                  rowTestId={(r) => r.attribution_value}
                  empty={hint}
                />
                {d.truncated && <div className="muted">The costliest 1000 of {count(d.total_groups)} agents.</div>}
              </>
            )}
          </QueryState>
        </section>
        <section className="card">
          <h2>Cost by workflow</h2>
          <QueryState query={byWorkflow} label="workflows">
            {(d) => (
              <DataTable
                name="cost-by-workflow"
                filter
                columns={columns('Workflow')}
                rows={d.items}
                initialSort={{ id: 'cost', desc: true }}
                rowTestId={(r) => r.attribution_value}
                empty={hint}
              />
            )}
          </QueryState>
        </section>
      </div>
      <div className="two-col">
        <section className="card">
          <h2>Agents seen</h2>
          <QueryState query={agents} label="agent list">
            {(d) => (
              <>
                <DataTable name="agents" columns={valueColumns} rows={d.values.map((value) => ({ value }))} rowTestId={(r) => r.value} />
                {d.truncated && <div className="muted">More than 1000 agents; the first 1000 are listed.</div>}
              </>
            )}
          </QueryState>
        </section>
        <section className="card">
          <h2>Workflows seen</h2>
          <QueryState query={workflows} label="workflow list">
            {(d) => (
              <>
                <DataTable name="workflows" columns={valueColumns} rows={d.values.map((value) => ({ value }))} rowTestId={(r) => r.value} />
                {d.truncated && <div className="muted">More than 1000 workflows; the first 1000 are listed.</div>}
              </>
            )}
          </QueryState>
        </section>
      </div>
    </div>
  );
}
