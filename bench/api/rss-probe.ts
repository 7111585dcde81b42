import fs from 'node:fs';
import { startFreshApi } from './fresh-api.js';
const dir = process.argv[2]!;
const meta = JSON.parse(fs.readFileSync(`${dir}/bench-meta.json`, 'utf8'));
const api = await startFreshApi({ dataDir: dir, now: '2026-09-28T18:00:00.000Z', ...(process.argv[3] ? { memoryLimit: process.argv[3] } : {}) });
console.log('start', api.rssMb());
const full = 'start_date=2026-07-01&end_date=2026-09-29';
const paths = [`/cost-data/by-end-user?${full}`, `/usage/summary?${full}`, `/dimension-data/cost-breakdown?dimension_key=team&${full}`, `/usage/events?${full}&offset=10000`, `/cost-data/by-end-user?start_date=2026-07-01T06:30:00Z&end_date=2026-09-28T18:45:00Z`, `/end-user-costs/user-0/summary?${full}`, `/dimension-data/numeric-summary?dimension_key=latency_ms&${full}`];
for (const p of [...paths, ...paths]) {
  const r = await api.get(p, meta.apiKey);
  await new Promise((res) => setTimeout(res, 1000));
  console.log(p.slice(0, 50).padEnd(50), r.ms.toFixed(0).padStart(6), JSON.stringify(api.rssMb()));
}
await api.stop();
