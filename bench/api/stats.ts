// Order statistics the read benchmarks report: the nearest-rank percentile (the value at rank
// ceil(q·n)), so p50 of an even count is the lower middle value, never an average of two runs.
export function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export const median = (values: readonly number[]): number => percentile(values, 0.5);
