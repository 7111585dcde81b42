// Which customer name an end user gets from revenue records (docs/design.md "End-user name"): that of
// its named record whose billing period ends last; on equal ends the first one seen. Pure; the
// store applies it when records are written, the revenue cache and margin when they are read.
// (upsertEndUsers asks the same of SQL: ORDER BY period_end DESC LIMIT 1.)

interface NamedRecord {
  customerName?: string | null;
  periodEnd: Date;
}

/** Per key (an end user), the record giving its name; records without a name or key are skipped. */
export function latestNamedRecords<R extends NamedRecord, K>(records: Iterable<R>, keyOf: (r: R) => K | null): Map<K, R> {
  const named = new Map<K, R>();
  for (const r of records) {
    const key = keyOf(r);
    if (key === null || !r.customerName) continue;
    const seen = named.get(key);
    if (!seen || r.periodEnd.getTime() > seen.periodEnd.getTime()) named.set(key, r);
  }
  return named;
}
