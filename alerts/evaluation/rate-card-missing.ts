// `rate_card.missing`: events arrived that no rate card prices. Once per organization, model (or
// provider, with metric and unit for metric events) and UTC day of processing, with the number of
// such events in the flush that raised it and one of their ids as a sample.
import type { Queryable } from '../../core/control/db.js';
import { fireOnce } from '../webhooks/outbox.js';
import type { TallyRow } from './spend-tally.js';
import { utcDate } from '../../core/time.js';

export async function fireRateCardMissing(db: Queryable, rows: readonly TallyRow[], now: Date): Promise<number> {
  if (rows.length === 0) return 0;
  const day = utcDate(now);
  const groups = new Map<string, { row: TallyRow; count: number }>();
  for (const r of rows) {
    const what = [r.model ?? r.provider ?? '', r.metric ?? '', r.unit ?? ''].join('|');
    const key = `${r.organizationId}\u0000${what}`;
    const g = groups.get(key);
    if (g) g.count++;
    else groups.set(key, { row: r, count: 1 });
  }
  let fired = 0;
  for (const { row, count } of groups.values()) {
    const what = [row.model ?? row.provider ?? '', row.metric ?? '', row.unit ?? ''].join('|');
    const data = {
      model: row.model,
      provider: row.provider,
      metric: row.metric,
      unit: row.unit,
      date: day,
      count,
      sample_event_id: row.eventId,
    };
    if (await fireOnce(db, row.organizationId, `rate_card.missing:${day}:${what}`, 'rate_card.missing', data)) fired++;
  }
  return fired;
}
