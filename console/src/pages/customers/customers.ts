// Customer rows: every end user with cost, revenue, margin, margin % and profitability, from the
// margin rows (least profitable first) joined with the cost rows by internal end_user_id; and the
// price advice rows named like them. Pure.
import type { CostByEndUser, EndUserMarginRow, Profitability } from '../../api/types.js';
import type { PriceAdvice } from './customers.queries.js';

export interface CustomerRow {
  end_user_id: string;
  end_user_name: string;
  cost: string;
  revenue: string | null;
  margin_amount: string | null;
  margin_percent: number | null;
  profitability: Profitability | null;
  event_count: number;
}

export function customerRows(cost: CostByEndUser, margin: EndUserMarginRow[] | null): CustomerRow[] {
  const costById = new Map(cost.end_users.map((u) => [u.end_user_id, u]));
  const rows: CustomerRow[] = (margin ?? []).map((m) => ({
    end_user_id: m.end_user_id,
    end_user_name: m.end_user_name,
    cost: m.cost,
    revenue: m.revenue,
    margin_amount: m.margin_amount,
    margin_percent: m.margin_percent,
    profitability: m.profitability_category,
    event_count: costById.get(m.end_user_id)?.event_count ?? 0,
  }));
  const seen = new Set(rows.map((r) => r.end_user_id));
  for (const u of cost.end_users) {
    if (seen.has(u.end_user_id)) continue;
    rows.push({
      end_user_id: u.end_user_id,
      end_user_name: u.end_user_name,
      cost: u.total_cost,
      revenue: null,
      margin_amount: null,
      margin_percent: null,
      profitability: null,
      event_count: u.event_count,
    });
  }
  return rows;
}

export interface PriceAdviceRow extends PriceAdvice {
  end_user_name: string;
}

/** Price advice rows (the API's order: plans that miss the target first) named as the margin rows name them. */
export function priceAdviceRows(advice: readonly PriceAdvice[], margin: EndUserMarginRow[] | null): PriceAdviceRow[] {
  const names = new Map((margin ?? []).map((m) => [m.end_user_id, m.end_user_name]));
  return advice.map((a) => ({ ...a, end_user_name: names.get(a.end_user_id) ?? a.external_id ?? a.end_user_id }));
}
