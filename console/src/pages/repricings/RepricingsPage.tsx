// Re-pricings of the organization's events with the rate cards in effect now, for its owners and
// admins, through the admin routes their session may call
// (/v1/admin/organizations/{organizationId}/repricings): each with its progress (asked again every
// 2 s while one runs) and its cost before and after (the API's decimal strings, shown exactly), and
// a form to start one over a range of UTC days. Refusals show the API's message, naming the field.
import { useState } from 'react';
import { adminPath, apiSend } from '../../api/client.js';
import { useApi, useWrite } from '../../api/queries.js';
import type { Repricing, RepricingList } from '../../api/types.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { FormError, QueryState } from '../../components/QueryState.js';
import { TextField } from '../../components/TextField.js';
import { dateTime, day } from '../../format/dates.js';
import { count, money, percent } from '../../format/money.js';

const REPRICINGS = 'repricings';

const columns: Column<Repricing>[] = [
  { id: 'asked', header: 'Started', value: (r) => r.created_at, render: (r) => dateTime(r.created_at) },
  { id: 'range', header: 'Events from – before', value: (r) => `${day(r.start_date)} – ${day(r.end_date)}` },
  {
    id: 'status',
    header: 'Status',
    value: (r) => r.status,
    render: (r) => (r.status === 'completed' ? 'completed' : `${r.status} ${percent(r.progress_percent)}`),
  },
  { id: 'events', header: 'Events re-priced', kind: 'number', value: (r) => r.events_repriced, render: (r) => count(r.events_repriced) },
  { id: 'changed', header: 'Changed', kind: 'number', value: (r) => r.events_changed, render: (r) => count(r.events_changed) },
  { id: 'before', header: 'Cost before', kind: 'money', value: (r) => r.cost_before, render: (r) => money(r.cost_before) },
  { id: 'after', header: 'Cost after', kind: 'money', value: (r) => r.cost_after, render: (r) => money(r.cost_after) },
  { id: 'change', header: 'Change', kind: 'money', value: (r) => r.cost_change, render: (r) => money(r.cost_change) },
];

export function RepricingsPage() {
  const jobs = useApi<RepricingList>(adminPath(REPRICINGS), {}, true, (d) =>
    d?.repricings.some((r) => r.status !== 'completed') ? 2000 : false,
  );
  return (
    <div className="page" data-page="repricings">
      <h1>Re-pricings</h1>
      <p className="muted">
        Prices the events of a range again with the rate cards in effect now (each event at the card in effect at its own time): every
        event's cost is replaced, never added to.
      </p>
      <QueryState query={jobs} label="re-pricings">
        {(d) => (
          <section className="card">
            <DataTable
              name="repricings"
              columns={columns}
              rows={d.repricings}
              rowTestId={(r) => r.repricing_id}
              empty="No re-pricings yet."
            />
          </section>
        )}
      </QueryState>
      <StartForm />
    </div>
  );
}

function StartForm() {
  const [from, setFrom] = useState('');
  const [until, setUntil] = useState('');
  const start = useWrite(adminPath(REPRICINGS), () =>
    apiSend<Repricing>('POST', adminPath(REPRICINGS), { start_date: from, end_date: until }),
  );
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    start.mutate();
  };
  return (
    <section className="card">
      <h2>Re-price a range</h2>
      <form className="inline-form" onSubmit={submit} data-form="start-repricing">
        <TextField label="From (UTC day, included)" type="date" name="repricing-from" value={from} onChange={setFrom} />
        <TextField label="Until (UTC day, not included)" type="date" name="repricing-until" value={until} onChange={setUntil} />
        <button type="submit" disabled={start.isPending}>
          {start.isPending ? 'Starting…' : 'Re-price'}
        </button>
      </form>
      <FormError error={start.error} />
    </section>
  );
}
