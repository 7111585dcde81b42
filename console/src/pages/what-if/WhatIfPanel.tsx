// The what-if panel of the Overview and of a customer's page: a model substitution typed in (or a
// saved scenario) priced over the page's range by POST /v1/what-if, on a customer's page with that
// customer as the scope; actual vs simulated cost, the difference and margins before and after,
// per customer on the Overview; a second saved scenario side by side; scenarios saved and deleted.
// Figures are the API's decimal strings, shown to the cent with the exact value on hover.
import { useState, type FormEvent } from 'react';
import { currentCredential } from '../../api/client.js';
import { useApi, useCostByEndUser } from '../../api/queries.js';
import type { RateItem } from '../../api/types.js';
import { ConfirmButton } from '../../components/ConfirmButton.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { Kpi } from '../../components/Kpi.js';
import { ErrorNote, FormError, QueryState } from '../../components/QueryState.js';
import { addDays, dateTime } from '../../format/dates.js';
import { cents, exactly } from '../../format/money.js';
import { mayOpen } from '../../access.js';
import { rangeQuery, type DateRange } from '../../range/date-range.js';
import { difference, scenarioText, substitutionScenario, whatIfRows, type WhatIfRow } from './what-if.js';
import {
  useDeleteScenario,
  useRangeModels,
  useSaveScenario,
  useScenarios,
  useWhatIf,
  type SavedScenario,
  type WhatIfResult,
  type WhatIfScenario,
} from './what-if.queries.js';

/** The customer a customer's page scopes the panel to. */
interface Customer {
  endUserId: string;
  externalId: string;
}

const Money = ({ value }: { value: string | null | undefined }) => <span title={exactly(value)}>{cents(value)}</span>;

/** A table column of money: sorted as decimals, shown to the cent with the exact value on hover. */
function money<T>(pick: (row: T) => string | null): Pick<Column<T>, 'kind' | 'value' | 'render'> {
  return { kind: 'money', value: pick, render: (r) => <Money value={pick(r)} /> };
}

/** The scenario as run on this page: a customer's page always scopes it to its customer. */
function runRequest(scenario: WhatIfScenario | null, range: DateRange, customer?: Customer) {
  if (scenario === null) return null;
  return { ...scenario, ...rangeQuery(range), ...(customer ? { end_user_id: customer.endUserId } : {}) };
}

export function WhatIfPanel({ range, customer }: { range: DateRange; customer?: Customer }) {
  const scenarios = useScenarios();
  const [choice, setChoice] = useState('new');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [ratio, setRatio] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const [ran, setRan] = useState<{ label: string; scenario: WhatIfScenario } | null>(null);
  const [compareId, setCompareId] = useState('');
  const saved = scenarios.data?.items ?? [];
  const compared = saved.find((s) => s.id === compareId) ?? null;
  const result = useWhatIf(runRequest(ran?.scenario ?? null, range, customer));
  const second = useWhatIf(runRequest(compared?.scenario ?? null, range, customer));

  const run = (e: FormEvent) => {
    e.preventDefault();
    const pick = saved.find((s) => s.id === choice);
    const typed = pick ? null : substitutionScenario(from, to, ratio);
    if (typed !== null && 'error' in typed) {
      setFormError(typed.error);
      return;
    }
    setFormError(null);
    setRan(pick ? { label: pick.name, scenario: pick.scenario } : { label: scenarioText(typed!.scenario), scenario: typed!.scenario });
  };

  return (
    <section className="card" data-card="what-if">
      <h2>What if…</h2>
      <p className="muted">
        Prices this {customer ? "customer's" : "organization's"} real events of the range ({range.start} to {addDays(range.end, -1)}) again
        under a scenario, with the same pricing as the processor. Nothing is changed; a negative difference is a saving.
      </p>
      <form className="inline-form" data-form="what-if" onSubmit={run}>
        <label>
          Scenario
          <select name="scenario" value={choice} onChange={(e) => setChoice(e.target.value)}>
            <option value="new">a model substitution…</option>
            {saved.map((s) => (
              <option key={s.id} value={s.id}>
                saved: {s.name}
              </option>
            ))}
          </select>
        </label>
        {choice === 'new' && <SubstitutionFields range={range} customer={customer} state={{ from, setFrom, to, setTo, ratio, setRatio }} />}
        <button type="submit">Run</button>
      </form>
      {formError && (
        <div className="note error" role="alert" data-error="what-if-form">
          {formError}
        </div>
      )}
      {ran === null ? (
        <div className="empty" data-empty="what-if">
          Pick a substitution or a saved scenario and run it over the range.
        </div>
      ) : (
        <QueryState query={result} label="the scenario">
          {(r) => (
            <>
              <Figures result={r} label={ran.label} customer={customer} />
              {!customer && <EndUserTable result={r} range={range} />}
              {choice === 'new' && <SaveForm scenario={ran.scenario} customer={customer} />}
            </>
          )}
        </QueryState>
      )}
      <Comparison
        saved={saved}
        compareId={compareId}
        setCompareId={setCompareId}
        first={ran && result.data ? { label: ran.label, result: result.data } : null}
        second={compared && second.data ? { label: compared.name, result: second.data } : null}
        secondError={second.isError ? second.error : null}
      />
      <SavedScenarios query={scenarios} />
    </section>
  );
}

interface SubstitutionState {
  from: string;
  setFrom: (v: string) => void;
  to: string;
  setTo: (v: string) => void;
  ratio: string;
  setRatio: (v: string) => void;
}

/** From: the models with cost in the range (the customer's, on its page); to: any model the rate table prices. */
function SubstitutionFields({ range, customer, state }: { range: DateRange; customer?: Customer; state: SubstitutionState }) {
  const byModel = useRangeModels(range, customer?.externalId);
  const rates = useApi<{ items: RateItem[] }>('/rates');
  const { models } = byModel;
  return (
    <>
      <label>
        Move events of
        <select name="from-model" value={state.from} onChange={(e) => state.setFrom(e.target.value)}>
          <option value="">
            {byModel.pending ? 'loading models…' : models.length === 0 ? 'no model has cost in the range' : 'pick a model'}
          </option>
          {models.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
      </label>
      <label>
        to model
        <input
          name="to-model"
          list="what-if-models"
          value={state.to}
          onChange={(e) => state.setTo(e.target.value)}
          placeholder="gpt-4o-mini"
        />
        <datalist id="what-if-models">
          {(rates.data?.items ?? []).map((r) => (
            <option key={r.model_slug} value={r.model_slug} />
          ))}
        </datalist>
      </label>
      <label>
        token ratio (optional)
        <input
          name="token-ratio"
          inputMode="decimal"
          value={state.ratio}
          onChange={(e) => state.setRatio(e.target.value)}
          placeholder="1"
        />
      </label>
      {byModel.error ? <ErrorNote error={byModel.error} /> : null}
    </>
  );
}

/** Why margins are missing: no revenue known in the range, or no revenue:read (a key's scopes the console does not know). */
function marginNote(): string {
  const credential = currentCredential();
  if (credential?.kind === 'session' && !mayOpen(credential, 'revenue:read')) {
    return `Margins need revenue:read, which your role (${credential.role}) does not give.`;
  }
  const key = credential?.kind === 'api_key' ? ' and a key with revenue:read' : '';
  return `Margins need revenue records in the range${key}.`;
}

function Figures({ result, label, customer }: { result: WhatIfResult; label: string; customer?: Customer }) {
  const mine = customer ? result.end_users.find((u) => u.end_user_id === customer.endUserId) : undefined;
  return (
    <div data-what-if="result">
      <div className="muted" data-what-if="label">
        Scenario: {label}
      </div>
      <div className="kpis">
        <Kpi id="what-if-actual" label="Actual cost" value={cents(result.actual_cost)} title={exactly(result.actual_cost)} />
        <Kpi id="what-if-simulated" label="Simulated cost" value={cents(result.simulated_cost)} title={exactly(result.simulated_cost)} />
        <Kpi id="what-if-difference" label="Difference" value={cents(result.difference)} title={exactly(result.difference)} />
        {customer && (
          <>
            <Kpi id="what-if-margin-before" label="Margin before" value={cents(mine?.actual_margin)} title={exactly(mine?.actual_margin)} />
            <Kpi
              id="what-if-margin-after"
              label="Margin after"
              value={cents(mine?.simulated_margin)}
              title={exactly(mine?.simulated_margin)}
            />
          </>
        )}
      </div>
      {customer && (mine?.actual_margin ?? null) === null && <div className="muted">{marginNote()}</div>}
    </div>
  );
}

function EndUserTable({ result, range }: { result: WhatIfResult; range: DateRange }) {
  const costs = useCostByEndUser(range);
  const names = new Map((costs.data?.end_users ?? []).map((u) => [u.end_user_id, u.end_user_name]));
  const columns: Column<WhatIfRow>[] = [
    { id: 'customer', header: 'Customer', value: (r) => r.name },
    { id: 'actual', header: 'Actual cost', ...money((r) => r.actual_cost) },
    { id: 'simulated', header: 'Simulated cost', ...money((r) => r.simulated_cost) },
    { id: 'difference', header: 'Difference', ...money((r) => r.difference) },
    { id: 'margin_before', header: 'Margin before', ...money((r) => r.actual_margin) },
    { id: 'margin_after', header: 'Margin after', ...money((r) => r.simulated_margin) },
  ];
  const rows = whatIfRows(result.end_users, names);
  return (
    <>
      <DataTable
        name="what-if-end-users"
        columns={columns}
        rows={rows}
        initialSort={{ id: 'difference', desc: false }}
        rowTestId={(r) => r.end_user_id}
        filter={rows.length > 10}
        empty="No customer has cost in this range (events without an end user count in the totals only)."
      />
      {rows.some((r) => r.actual_margin === null) && (
        <div className="muted" data-what-if="margin-note">
          {rows.every((r) => r.actual_margin === null) ? marginNote() : 'Margin — : no revenue records for that customer in the range.'}
        </div>
      )}
    </>
  );
}

function SaveForm({ scenario, customer }: { scenario: WhatIfScenario; customer?: Customer }) {
  const [name, setName] = useState('');
  const save = useSaveScenario(() => setName(''));
  const credential = currentCredential();
  // The API saves with costs:read, the scope the panel itself needs.
  if (credential === null || !mayOpen(credential, 'costs:read')) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ name, scenario });
  };
  return (
    <form className="inline-form" data-form="save-scenario" onSubmit={submit} style={{ marginTop: 12 }}>
      <label>
        Save this scenario as
        <input name="scenario-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="Support on mini" />
      </label>
      <button type="submit" disabled={save.isPending}>
        {save.isPending ? 'Saving…' : 'Save'}
      </button>
      {customer && <span className="muted">Saved without the customer: it runs on any page's scope.</span>}
      <FormError error={save.error} />
    </form>
  );
}

interface Run {
  label: string;
  result: WhatIfResult;
}

/** Two scenarios' totals over the same range and scope, side by side. */
function Comparison(props: {
  saved: SavedScenario[];
  compareId: string;
  setCompareId: (id: string) => void;
  first: Run | null;
  second: Run | null;
  secondError: unknown;
}) {
  if (props.saved.length === 0) return null;
  const runs = [props.first, props.second].filter((r): r is Run => r !== null);
  const columns: Column<Run>[] = [
    { id: 'scenario', header: 'Scenario', value: (r) => r.label },
    { id: 'actual', header: 'Actual cost', ...money((r) => r.result.actual_cost) },
    { id: 'simulated', header: 'Simulated cost', ...money((r) => r.result.simulated_cost) },
    { id: 'difference', header: 'Difference', ...money((r) => r.result.difference) },
  ];
  return (
    <div data-what-if="compare">
      <h3>Compare</h3>
      <form className="inline-form" onSubmit={(e) => e.preventDefault()}>
        <label>
          Beside it, the saved scenario
          <select name="compare" value={props.compareId} onChange={(e) => props.setCompareId(e.target.value)}>
            <option value="">none</option>
            {props.saved.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
      </form>
      {props.secondError !== null && <ErrorNote error={props.secondError} />}
      {props.compareId !== '' && runs.length > 0 && (
        <>
          <DataTable name="what-if-compare" columns={columns} rows={runs} rowTestId={(r) => r.label} />
          {runs.length === 2 && (
            <div className="muted" data-what-if="between">
              The second simulated cost minus the first:{' '}
              <Money value={difference(runs[0]!.result.simulated_cost, runs[1]!.result.simulated_cost)} />
            </div>
          )}
        </>
      )}
    </div>
  );
}

function SavedScenarios({ query }: { query: ReturnType<typeof useScenarios> }) {
  const remove = useDeleteScenario();
  const credential = currentCredential();
  const mayDelete = credential !== null && mayOpen(credential, 'costs:read');
  const columns: Column<SavedScenario>[] = [
    { id: 'name', header: 'Saved scenario', value: (s) => s.name },
    { id: 'changes', header: 'Changes', value: (s) => scenarioText(s.scenario) },
    { id: 'created', header: 'Saved', value: (s) => s.created_at, render: (s) => dateTime(s.created_at) },
    ...(mayDelete
      ? [
          {
            id: 'delete',
            header: '',
            value: () => '',
            render: (s: SavedScenario) => (
              <ConfirmButton
                label="Delete"
                confirmLabel={`Delete "${s.name}"`}
                busy={remove.isPending}
                onConfirm={() => remove.mutate(s.id)}
              />
            ),
          },
        ]
      : []),
  ];
  return (
    <div data-what-if="saved">
      <h3>Saved scenarios</h3>
      <QueryState query={query} label="saved scenarios">
        {(d) => (
          <DataTable
            name="what-if-scenarios"
            columns={columns}
            rows={d.items}
            rowTestId={(s) => s.name}
            empty="No saved scenarios yet: run a substitution and save it under a name."
          />
        )}
      </QueryState>
      <FormError error={remove.error} />
    </div>
  );
}
