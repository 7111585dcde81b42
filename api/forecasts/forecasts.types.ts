// The wire shapes of GET /v1/forecasts and GET /v1/forecasts/price-advice. Money is an exact
// decimal string; revenue and margin are null without revenue:read (or, per end user, without
// revenue in the window).

/** The window a forecast closes: the current UTC calendar month, or 30 UTC days from today. */
export type ForecastHorizon = 'month-end' | 'next-30-days';

/** A forecast figure and its 80% interval (low ≤ value ≤ high). */
export interface ForecastFigure {
  value: string;
  low: string;
  high: string;
}

export interface EndUserForecast {
  /** The internal end-user UUID (as /margin-data names it). */
  end_user_id: string;
  /** The end user's external id (the events' user_id). */
  external_id: string | null;
  /** Completed cost already in the window plus the forecast of the rest. */
  cost: ForecastFigure;
  /** Revenue recognized in the window from known billing periods; null without revenue for this end user or without revenue:read. */
  revenue: ForecastFigure | null;
  /** revenue − cost (low against cost.high, high against cost.low); null as revenue is. */
  margin: ForecastFigure | null;
}

export interface Forecast {
  horizon: ForecastHorizon;
  /** The instant the forecast was made: cost before it is observed, after it forecast. */
  as_of: string;
  /** First UTC date of the window. */
  start_date: string;
  /** UTC date after the window's last (exclusive). */
  end_date: string;
  /** The cost method (docs/api.md "Forecasts"). */
  method: string;
  /** Completed cost in the window up to as_of (exact, part of cost). */
  observed_cost: string;
  cost: ForecastFigure;
  /** Revenue recognized in the window from known billing periods (low = value = high); null without revenue:read. */
  revenue: ForecastFigure | null;
  /** revenue − cost; null without revenue:read. */
  margin: ForecastFigure | null;
  /** End users with cost in the last 56 days or the window, or revenue in the window; by end_user_id. */
  end_users: EndUserForecast[];
}

export interface PriceAdvice {
  end_user_id: string;
  external_id: string | null;
  /** The billing period covering as_of (its revenue record's period), counted in whole UTC days. */
  period_start: string;
  period_end: string;
  /** Revenue the customer's records recognize in that period. */
  current_price: string;
  /** Completed cost in the period so far plus the forecast of the rest. */
  forecast_cost: ForecastFigure;
  /** (current_price − forecast cost) / current_price × 100, 2 decimals; null when the price is 0. */
  forecast_margin_percent: number | null;
  /** forecast cost ÷ (1 − target / 100), rounded up to the cent. */
  required_price: string;
  /** current_price reaches the target margin under the forecast cost (compared exactly, before rounding). */
  reaches_target: boolean;
}

export interface PriceAdviceList {
  as_of: string;
  target_margin_percent: number;
  method: string;
  /** Customers (end users with a billing period covering as_of); those whose plan misses the target first, then by end_user_id. */
  customers: PriceAdvice[];
}
