// Reconciliation: the providers' own cost reports against our cost of the same UTC days, per day
// and per day × provider × model (with the provider's projects or keys), in money and percent;
// rows only one side has called out, days beyond the tolerance marked, totals over the compared
// days, and our cost of days no report covers; where a usage report covers a row, a second table
// sets the provider's token counts against ours per class, so a variance reads as price or usage.
// Owners and admins also see the connections and may import a report (ProviderReportsSection).
// Money to the cent, the exact figure on hover.
import { useMemo, useState } from 'react';
import { mayOpen } from '../../access.js';
import { currentCredential } from '../../api/client.js';
import { Cents } from '../../components/Cents.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { Kpi } from '../../components/Kpi.js';
import { QueryState } from '../../components/QueryState.js';
import { cents, count, exactly, percent, sumMoney } from '../../format/money.js';
import { useDateRange } from '../../range/date-range.js';
import { ProviderReportsSection } from './ProviderReportsSection.js';
import { reconciliationTotals, sideText, signedTokens } from './reconciliation.js';
import {
  useReconciliation,
  type ReconciliationDay,
  type ReconciliationReport,
  type ReconciliationRow,
  type UnreportedCost,
} from './reconciliation.queries.js';

type Figures = Pick<ReconciliationRow, 'provider_cost' | 'our_cost' | 'variance' | 'variance_percent' | 'out_of_tolerance'>;

function figureColumns<T extends Figures>(): Column<T>[] {
  return [
    {
      id: 'provider_cost',
      header: 'Provider’s cost',
      kind: 'money',
      value: (r) => r.provider_cost,
      render: (r) => <Cents value={r.provider_cost} />,
    },
    { id: 'our_cost', header: 'Our cost', kind: 'money', value: (r) => r.our_cost, render: (r) => <Cents value={r.our_cost} /> },
    { id: 'variance', header: 'Variance', kind: 'money', value: (r) => r.variance, render: (r) => <Cents value={r.variance} /> },
    {
      id: 'variance_percent',
      header: 'Variance %',
      kind: 'number',
      value: (r) => r.variance_percent,
      render: (r) => (r.variance_percent === null ? 'no provider cost' : percent(r.variance_percent)),
    },
    {
      id: 'tolerance',
      header: 'Tolerance',
      value: (r) => (r.out_of_tolerance ? 'out' : 'within'),
      render: (r) =>
        r.out_of_tolerance ? (
          <span className="badge unprofitable">out of tolerance</span>
        ) : (
          <span className="badge profitable">within</span>
        ),
    },
  ];
}

const dayColumns: Column<ReconciliationDay>[] = [
  { id: 'date', header: 'Day (UTC)', value: (d) => d.date },
  { id: 'providers', header: 'Reports from', value: (d) => d.providers.join(', ') },
  ...figureColumns<ReconciliationDay>(),
];

const rowColumns: Column<ReconciliationRow>[] = [
  { id: 'date', header: 'Day (UTC)', value: (r) => r.date },
  { id: 'provider', header: 'Provider', value: (r) => r.provider },
  {
    id: 'model',
    header: 'Model',
    value: (r) => r.model,
    render: (r) => {
      const side = sideText(r.side);
      return (
        <>
          {r.model}{' '}
          {side && (
            <span className="badge break-even" data-side={r.side}>
              {side}
            </span>
          )}
        </>
      );
    },
  },
  {
    id: 'projects',
    header: 'Project or key (provider’s cost)',
    value: (r) => r.projects.map((p) => `${p.project} ${p.provider_cost}`).join('; ') || null,
    render: (r) =>
      r.projects.length === 0
        ? '—'
        : r.projects.map((p, i) => (
            <span key={p.project}>
              {i > 0 && ', '}
              {p.project} <Cents value={p.provider_cost} />
            </span>
          )),
  },
  ...figureColumns<ReconciliationRow>(),
];

type TokenRow = ReconciliationRow & { tokens: NonNullable<ReconciliationRow['tokens']> };
type TokenClass = keyof TokenRow['tokens'];

/** One token class: the provider's count, ours (when shown) and ours − the provider's. */
function tokenColumns(cls: TokenClass, label: string, withOurs: boolean): Column<TokenRow>[] {
  const ours: Column<TokenRow> = {
    id: `${cls}_ours`,
    header: `${label}: ours`,
    kind: 'number',
    value: (r) => r.tokens[cls].ours,
    render: (r) => count(r.tokens[cls].ours),
  };
  return [
    {
      id: `${cls}_provider`,
      header: `${label}: provider’s`,
      kind: 'number',
      value: (r) => r.tokens[cls].provider,
      render: (r) => count(r.tokens[cls].provider),
    },
    ...(withOurs ? [ours] : []),
    {
      id: `${cls}_variance`,
      header: `${label}: variance`,
      kind: 'number',
      value: (r) => r.tokens[cls].variance,
      render: (r) => <span data-variance={r.tokens[cls].variance}>{signedTokens(r.tokens[cls].variance)}</span>,
    },
  ];
}

/** The token table's columns; our own counts only on request, so the table stays one screen wide. */
function tokenRowColumns(withOurs: boolean): Column<TokenRow>[] {
  return [
    { id: 'date', header: 'Day (UTC)', value: (r) => r.date },
    { id: 'provider', header: 'Provider', value: (r) => r.provider },
    { id: 'model', header: 'Model', value: (r) => r.model },
    ...tokenColumns('input_tokens', 'Input', withOurs),
    ...tokenColumns('cached_input_tokens', 'Cached input', withOurs),
    ...tokenColumns('output_tokens', 'Output', withOurs),
  ];
}

const unreportedColumns: Column<UnreportedCost>[] = [
  { id: 'date', header: 'Day (UTC)', value: (u) => u.date },
  { id: 'provider', header: 'Provider', value: (u) => u.provider },
  { id: 'our_cost', header: 'Our cost', kind: 'money', value: (u) => u.our_cost, render: (u) => <Cents value={u.our_cost} /> },
];

export function ReconciliationPage() {
  const range = useDateRange();
  const report = useReconciliation(range);
  const credential = currentCredential();
  return (
    <div className="page" data-page="reconciliation">
      <h1>Reconciliation</h1>
      <QueryState query={report} label="the reconciliation">
        {(r) => (r.days.length === 0 ? <NoReports report={r} /> : <Compared report={r} />)}
      </QueryState>
      {credential && mayOpen(credential, 'organization:admin') && <ProviderReportsSection />}
    </div>
  );
}

function NoReports({ report }: { report: ReconciliationReport }) {
  return (
    <>
      <div className="empty note" data-empty="reconciliation">
        No provider report covers this range yet. Import OpenAI’s organization costs, Anthropic’s cost report or a CSV of date, provider,
        model, project and cost (owners and admins: below, or <code>POST /v1/admin/organizations/&lt;id&gt;/provider-cost-reports</code>),
        or connect the provider’s cost API to have the last 7 days imported every hour. See the documentation’s Reconciliation page (
        <code>docs/reconciliation.md</code>).
      </div>
      <UnreportedSection report={report} />
    </>
  );
}

function Compared({ report }: { report: ReconciliationReport }) {
  const totals = reconciliationTotals(report);
  return (
    <>
      <section className="kpis">
        <Kpi id="provider-cost" label="Provider’s cost" value={cents(totals.provider_cost)} title={exactly(totals.provider_cost)} />
        <Kpi id="our-cost" label="Our cost" value={cents(totals.our_cost)} title={exactly(totals.our_cost)} />
        <Kpi
          id="variance"
          label="Variance (ours − provider’s)"
          value={cents(totals.variance)}
          title={exactly(totals.variance)}
          note={totals.variance_percent === null ? 'no provider cost' : `${percent(totals.variance_percent)} of the provider’s cost`}
        />
        <Kpi
          id="days-out"
          label="Days out of tolerance"
          value={`${count(totals.daysOut)} of ${count(totals.days)}`}
          note={`tolerance ±${report.tolerance_percent}% of the provider’s cost`}
        />
      </section>
      <section className="card">
        <h2>By day</h2>
        <div className="muted">
          Days a provider report covers; a day is out of tolerance when its variance is beyond ±{report.tolerance_percent}% of the
          provider’s cost.
        </div>
        <DataTable
          name="reconciliation-days"
          columns={dayColumns}
          rows={report.days}
          rowTestId={(d) => d.date}
          rowClass={(d) => (d.out_of_tolerance ? 'out-of-tolerance' : undefined)}
        />
      </section>
      <section className="card">
        <h2>By day, provider and model</h2>
        <DataTable
          name="reconciliation-rows"
          columns={rowColumns}
          rows={report.rows}
          filter
          rowTestId={(r) => `${r.date}/${r.provider}/${r.model}`}
          rowClass={(r) => (r.out_of_tolerance ? 'out-of-tolerance' : undefined)}
        />
      </section>
      <TokensSection report={report} />
      <UnreportedSection report={report} />
    </>
  );
}

/** The rows a usage report covers: the provider's tokens against ours, per class. */
function TokensSection({ report }: { report: ReconciliationReport }) {
  const [withOurs, setWithOurs] = useState(false);
  const columns = useMemo(() => tokenRowColumns(withOurs), [withOurs]);
  const rows = report.rows.filter((r): r is TokenRow => r.tokens != null);
  if (rows.length === 0) return null;
  return (
    <section className="card">
      <h2>Tokens by day, provider and model</h2>
      <div className="muted">
        From the providers’ usage reports: input not read from cache (cache writes included), cached input (cache reads) and output;
        variance is ours − the provider’s. A cost variance with no token variance is a price difference; a token variance is usage one side
        is missing.
      </div>
      <label className="muted">
        <input type="checkbox" name="tokens-with-ours" checked={withOurs} onChange={(e) => setWithOurs(e.target.checked)} /> Show our counts
        too
      </label>
      <DataTable
        name="reconciliation-tokens"
        columns={columns}
        rows={rows}
        filter
        rowTestId={(r) => `${r.date}/${r.provider}/${r.model}`}
      />
    </section>
  );
}

/** Our cost of (day, provider) pairs no report covers: not compared, so not a variance. */
function UnreportedSection({ report }: { report: ReconciliationReport }) {
  if (report.unreported.length === 0) return null;
  return (
    <section className="card">
      <h2>Not covered by a report</h2>
      <div className="muted">
        Our cost on days no report of that provider covers, <Cents value={sumMoney(report.unreported.map((u) => u.our_cost))} /> in all (not
        compared).
      </div>
      <DataTable
        name="reconciliation-unreported"
        columns={unreportedColumns}
        rows={report.unreported}
        rowTestId={(u) => `${u.date}/${u.provider}`}
      />
    </section>
  );
}
