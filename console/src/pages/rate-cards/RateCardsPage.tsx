// The organization's own token rate cards, for its owners and admins, through the admin routes their
// session may call (/v1/admin/organizations/{organizationId}/rate-cards): the cards in effect (or
// the whole history), and a form to add one or correct one (the same model, service tier and
// effective date supersede the current card). The answer names the event times whose price the
// write changes; one click re-prices that range with the call the API names. Rates are the API's
// decimal strings, shown exactly; tiers and time-of-day windows are shown, written with the CLI.
import { useState } from 'react';
import { adminPath, apiSend } from '../../api/client.js';
import { useApi, useWrite } from '../../api/queries.js';
import type { RateCard, RateCardList, RateCardWrite, Repricing } from '../../api/types.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { FormError, QueryState } from '../../components/QueryState.js';
import { TextField } from '../../components/TextField.js';
import { dateTime } from '../../format/dates.js';
import { money } from '../../format/money.js';

const CARDS = 'rate-cards';
const RATES = [
  ['input_cost_per_million', 'Input / 1M'],
  ['output_cost_per_million', 'Output / 1M'],
  ['cache_creation_cost_per_million', 'Cache write / 1M'],
  ['cache_creation_1h_cost_per_million', '1h cache write / 1M'],
  ['cache_read_cost_per_million', 'Cache read / 1M'],
  ['reasoning_cost_per_million', 'Reasoning / 1M'],
] as const;
type RateField = (typeof RATES)[number][0];

/** A card without an effective date is stored from 1970-01-01 (the API's "always"). */
function since(iso: string): string {
  return iso.startsWith('1970-01-01T00:00:00') ? 'always' : dateTime(iso);
}

const columns: Column<RateCard>[] = [
  { id: 'model', header: 'Model slug', value: (c) => c.model_slug },
  { id: 'service_tier', header: 'Service tier', value: (c) => c.service_tier },
  { id: 'effective_from', header: 'In effect from', value: (c) => c.effective_from, render: (c) => since(c.effective_from) },
  {
    id: 'state',
    header: 'State',
    value: (c) => c.superseded_at,
    render: (c) => (c.superseded_at ? <span className="muted">superseded {dateTime(c.superseded_at)}</span> : 'current'),
  },
  ...RATES.map(
    ([field, header]): Column<RateCard> => ({
      id: field,
      header,
      kind: 'money',
      value: (c) => c[field],
      render: (c) => (c[field] === null ? '—' : money(c[field])),
    }),
  ),
  {
    id: 'extras',
    header: 'Tiers / windows',
    value: (c) => `${c.tiers.length} / ${c.time_of_day_windows.length}`,
  },
];

export function RateCardsPage() {
  const [history, setHistory] = useState(false);
  const cards = useApi<RateCardList>(adminPath(CARDS), { include_superseded: history ? 'true' : undefined });
  return (
    <div className="page" data-page="rate-cards">
      <div className="card-head">
        <h1>Rate cards</h1>
        <label className="check">
          <input type="checkbox" checked={history} onChange={(e) => setHistory(e.target.checked)} /> with superseded cards
        </label>
      </div>
      <p className="muted">
        Your own cards, in USD per million tokens; each replaces the standard card of its model slug (the Rates page shows the cards in
        effect now).
      </p>
      <QueryState query={cards} label="rate cards">
        {(d) => (
          <section className="card">
            <DataTable
              name="rate-cards"
              filter
              columns={columns}
              rows={d.rate_cards}
              rowTestId={(c) => c.rate_card_id}
              empty="No cards of your own: the standard cards price every event."
            />
          </section>
        )}
      </QueryState>
      <CardForm />
    </div>
  );
}

function CardForm() {
  const [slug, setSlug] = useState('');
  const [tier, setTier] = useState('');
  const [from, setFrom] = useState('');
  const [rates, setRates] = useState<Partial<Record<RateField, string>>>({});
  const write = useWrite(adminPath(CARDS), () =>
    apiSend<RateCardWrite>('POST', adminPath(CARDS), {
      model_slug: slug.trim(),
      ...(tier.trim() === '' ? {} : { service_tier: tier.trim() }),
      ...(from === '' ? {} : { effective_from: from }),
      // Rates go as typed: the API reads each as an exact decimal and names the one it refuses.
      ...Object.fromEntries(RATES.map(([field]) => [field, rates[field]?.trim() || null])),
    }),
  );
  const reprice = useWrite(adminPath('repricings'), () => apiSend<Repricing>('POST', adminPath('repricings'), write.data!.repricing!.body));
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    reprice.reset();
    write.mutate();
  };
  return (
    <section className="card">
      <h2>Add or correct a card</h2>
      <form className="inline-form" onSubmit={submit} data-form="rate-card">
        <TextField label="Model slug" name="card-model" value={slug} onChange={setSlug} placeholder="gpt-4o" />
        <TextField label="Service tier" name="card-tier" value={tier} onChange={setTier} placeholder="standard" />
        <TextField label="In effect from (UTC)" type="date" name="card-from" value={from} onChange={setFrom} />
        {RATES.map(([field, label]) => (
          <TextField
            key={field}
            label={label}
            name={field}
            inputMode="decimal"
            value={rates[field] ?? ''}
            onChange={(v) => setRates({ ...rates, [field]: v })}
          />
        ))}
        <button type="submit" disabled={write.isPending}>
          {write.isPending ? 'Saving…' : 'Save card'}
        </button>
      </form>
      <FormError error={write.error} />
      {write.data && (
        <div className="note" data-card-written={write.data.rate_card_id}>
          <p>
            {write.data.supersedes_rate_card_id ? 'Corrected: the earlier card is kept as history.' : 'Added.'} It prices events{' '}
            {since(write.data.affected_range.start_date) === 'always'
              ? 'of any time'
              : `from ${dateTime(write.data.affected_range.start_date)}`}
            {write.data.affected_range.end_date ? ` until ${dateTime(write.data.affected_range.end_date)}` : ''}; events already priced keep
            their cost until that range is re-priced.
          </p>
          {write.data.repricing && (
            <button type="button" disabled={reprice.isPending || reprice.isSuccess} onClick={() => reprice.mutate()}>
              {reprice.isSuccess ? 'Re-pricing started (see Re-pricings)' : 'Re-price that range'}
            </button>
          )}
          <FormError error={reprice.error} />
        </div>
      )}
    </section>
  );
}
