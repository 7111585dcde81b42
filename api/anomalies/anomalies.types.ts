// GET /v1/anomalies answer shapes (money as decimal strings).

/** What a cost series is kept per. */
export type AnomalyDimension = 'end_user' | 'agent' | 'model' | 'feature';

/** The value of another dimension that carried the largest part of the jump. */
export interface AnomalyContributor {
  dimension: AnomalyDimension;
  /** External id for end users. */
  value: string;
  /** Its cost within the anomaly's series on the day. */
  cost: string;
  /** Its baseline within the series (same rule as the series'). */
  baseline: string;
  /** cost − baseline. */
  increase: string;
}

export interface Anomaly {
  /** UTC date, YYYY-MM-DD. */
  date: string;
  /**
   * Present on an hourly item only: the completed hour of today (UTC) that spiked, e.g.
   * "2026-11-27T14:00:00Z"; its cost and baseline are that hour's, against the same hour of the
   * previous 28 days. Absent on daily items.
   */
  hour?: string;
  dimension: AnomalyDimension;
  /** External id for end users; the model, agent id or feature otherwise. */
  value: string;
  /** The day's completed cost of the series. */
  cost: string;
  /** Median cost of the same weekday over the previous 28 days (see docs/api.md "Anomalies"). */
  baseline: string;
  /** cost − baseline: the severity items are ordered by within a date. */
  increase: string;
  /** cost / baseline, rounded to 2 decimals. */
  ratio: number;
  /** Robust z of the jump, rounded to 2 decimals. */
  z_score: number;
  /** The top contributor of the increase in each other dimension that explains some of it, largest first. */
  contributors: AnomalyContributor[];
}

export interface AnomalyList {
  items: Anomaly[];
}
