// The organization's budgets, for its owners and admins, through the admin routes their session
// may call (/v1/admin/organizations/{organizationId}/budgets): each with its current period's spend
// (the API's decimal strings, shown exactly), a new budget, a deletion confirmed in place. The
// fields a scope needs are asked for that scope only; refusals show the API's message.
import { useState } from 'react';
import { adminPath, apiSend } from '../../api/client.js';
import { useApi, useWrite } from '../../api/queries.js';
import type { Budget, BudgetList, BudgetPeriod, BudgetScope } from '../../api/types.js';
import { ConfirmButton } from '../../components/ConfirmButton.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { FormError, QueryState } from '../../components/QueryState.js';
import { TextField } from '../../components/TextField.js';
import { day } from '../../format/dates.js';
import { money, percent } from '../../format/money.js';

/** Each scope and the fields that name what it covers, with their labels (the API judges them again: alerts/budgets/budget-views.ts). */
const SCOPES: ReadonlyArray<readonly [BudgetScope, string, ReadonlyArray<readonly [keyof Budget & string, string]>]> = [
  ['organization', 'the whole organization', []],
  ['end_user', 'one end user', [['user_id', 'End user id']]],
  ['each_end_user', 'each end user', []],
  ['agent', 'one agent', [['agent_id', 'Agent id']]],
  ['workflow', 'one workflow', [['workflow_id', 'Workflow id']]],
  [
    'dimension',
    'one dimension value',
    [
      ['dimension_key', 'Dimension key'],
      ['dimension_value', 'Dimension value'],
    ],
  ],
];
const PERIODS: BudgetPeriod[] = ['daily', 'weekly', 'monthly'];

const BUDGETS = 'budgets';

/** What a budget covers, in words. */
function covers(b: Budget): string {
  const [, label, fields] = SCOPES.find(([scope]) => scope === b.scope) ?? [b.scope, b.scope, []];
  const named = fields.map(([field]) => b[field]).filter((v) => v !== null && v !== undefined);
  return named.length ? `${label}: ${named.join(' = ')}` : label;
}

export function BudgetsPage() {
  const budgets = useApi<BudgetList>(adminPath(BUDGETS));
  return (
    <div className="page" data-page="budgets">
      <h1>Budgets</h1>
      <QueryState query={budgets} label="budgets">
        {(d) => (
          <>
            <BudgetTable budgets={d.budgets} />
            <CreateBudgetForm />
          </>
        )}
      </QueryState>
    </div>
  );
}

function BudgetTable({ budgets }: { budgets: Budget[] }) {
  const remove = useWrite(adminPath(BUDGETS), (id: string) => apiSend<Budget>('DELETE', `${adminPath(BUDGETS)}/${id}`));
  const columns: Column<Budget>[] = [
    { id: 'name', header: 'Budget', value: (b) => b.name ?? covers(b) },
    { id: 'covers', header: 'Covers', value: (b) => covers(b) },
    { id: 'period', header: 'Period', value: (b) => `${b.period} ${day(b.period_start)} – ${day(b.period_end)}` },
    { id: 'amount', header: 'Amount', kind: 'money', value: (b) => b.amount, render: (b) => money(b.amount) },
    { id: 'spent', header: 'Spent', kind: 'money', value: (b) => b.spent, render: (b) => money(b.spent) },
    { id: 'remaining', header: 'Remaining', kind: 'money', value: (b) => b.remaining, render: (b) => money(b.remaining) },
    {
      id: 'percent',
      header: 'Used',
      kind: 'number',
      value: (b) => b.percent,
      render: (b) => (b.exhausted ? <span className="badge unprofitable">{percent(b.percent)} exhausted</span> : percent(b.percent)),
    },
    { id: 'thresholds', header: 'Alerts at', value: (b) => b.thresholds.map((t) => `${t}%`).join(' ') },
    {
      id: 'delete',
      header: '',
      value: () => null,
      render: (b) => (
        <ConfirmButton label="Delete" confirmLabel="Delete now" busy={remove.isPending} onConfirm={() => remove.mutate(b.id)} />
      ),
    },
  ];
  return (
    <section className="card">
      <h2>This period</h2>
      <FormError error={remove.error} />
      <DataTable name="budgets" columns={columns} rows={budgets} rowTestId={(b) => b.name ?? b.id} empty="No budgets yet." />
    </section>
  );
}

function CreateBudgetForm() {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<BudgetScope>('organization');
  const [keys, setKeys] = useState<Record<string, string>>({});
  const [period, setPeriod] = useState<BudgetPeriod>('monthly');
  const [amount, setAmount] = useState('');
  const [thresholds, setThresholds] = useState('');
  const fields = SCOPES.find(([s]) => s === scope)![2];
  const create = useWrite(
    adminPath(BUDGETS),
    () =>
      apiSend<Budget>('POST', adminPath(BUDGETS), {
        ...(name.trim() === '' ? {} : { name: name.trim() }),
        scope,
        ...Object.fromEntries(fields.map(([field]) => [field, keys[field] ?? ''])),
        period,
        // The amount goes as typed: the API reads it as an exact decimal and names it if it is not one.
        amount: amount.trim(),
        // Anything but whole numbers goes as typed, so the API's own message names the field.
        ...(thresholds.trim() === ''
          ? {}
          : { thresholds: thresholds.split(',').map((t) => (/^\s*\d+\s*$/.test(t) ? Number(t) : t.trim())) }),
      }),
    () => {
      setName('');
      setAmount('');
      setThresholds('');
    },
  );
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <section className="card">
      <h2>New budget</h2>
      <form className="inline-form" onSubmit={submit} data-form="create-budget">
        <TextField label="Name" name="budget-name" value={name} onChange={setName} placeholder="optional" />
        <label>
          Covers
          <select name="budget-scope" value={scope} onChange={(e) => setScope(e.target.value as BudgetScope)}>
            {SCOPES.map(([s, label]) => (
              <option key={s} value={s}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {fields.map(([field, label]) => (
          <TextField
            key={field}
            label={label}
            name={`budget-${field}`}
            value={keys[field] ?? ''}
            onChange={(v) => setKeys({ ...keys, [field]: v })}
          />
        ))}
        <label>
          Period (UTC)
          <select name="budget-period" value={period} onChange={(e) => setPeriod(e.target.value as BudgetPeriod)}>
            {PERIODS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <TextField label="Amount (USD)" name="budget-amount" inputMode="decimal" value={amount} onChange={setAmount} placeholder="500.00" />
        <TextField
          label="Alerts at % (comma-separated)"
          name="budget-thresholds"
          value={thresholds}
          onChange={setThresholds}
          placeholder="50, 80, 100"
        />
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create budget'}
        </button>
      </form>
      <FormError error={create.error} />
    </section>
  );
}
