// The month-end forecast (GET /v1/forecasts?horizon=month-end): cost with its interval and the part
// already spent, revenue from known billing periods and the margin they leave, shown to the cent
// (estimates; the exact figure on hover). It does not follow the page's date range: a forecast is
// always of the current UTC month, as of now.
import { QueryState } from '../../components/QueryState.js';
import { dateTime } from '../../format/dates.js';
import { cents, exactly, money } from '../../format/money.js';
import { useMonthEndForecast, type ForecastFigure } from './overview.queries.js';

/** "2025-03-01" → "March 2025". */
const monthOf = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

function Interval({ figure }: { figure: ForecastFigure }) {
  return (
    <div className="kpi-change" data-interval>
      {figure.low === figure.high ? 'no spread in the backtest' : `likely ${cents(figure.low)} – ${cents(figure.high)}`}
    </div>
  );
}

function Figure(props: { id: string; label: string; figure: ForecastFigure | null; note?: string; interval?: boolean }) {
  return (
    <div className="kpi" data-forecast={props.id}>
      <div className="kpi-label">{props.label}</div>
      <div className="kpi-value" data-value title={exactly(props.figure?.value)}>
        {props.figure ? cents(props.figure.value) : '—'}
      </div>
      {props.figure && props.interval !== false && <Interval figure={props.figure} />}
      {props.note && <div className="kpi-note">{props.note}</div>}
    </div>
  );
}

export function ForecastCard() {
  const forecast = useMonthEndForecast();
  return (
    <section className="card" data-card="forecast">
      <h2>Month-end forecast</h2>
      <QueryState query={forecast} label="the forecast">
        {(f) => (
          <>
            <div className="kpis">
              <Figure id="cost" label={`Cost, ${monthOf(f.start_date)}`} figure={f.cost} note={`${money(f.observed_cost)} spent so far`} />
              <Figure
                id="revenue"
                label="Revenue"
                figure={f.revenue}
                interval={false}
                note={f.revenue ? 'from billing periods already known' : 'needs a key with revenue:read'}
              />
              <Figure id="margin" label="Gross margin" figure={f.margin} note={f.margin ? undefined : 'needs revenue:read'} />
            </div>
            <div className="muted">
              {f.start_date} to {f.end_date} (exclusive), as of {dateTime(f.as_of)}: the month so far exactly, the rest forecast from the
              last 56 days by weekday and trend. The range is where the month-end total lands in most months (docs: Forecasts).
            </div>
          </>
        )}
      </QueryState>
    </section>
  );
}
