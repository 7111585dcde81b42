// What one group commit costs on PGlite, statement by statement: opens PGlite on disk in this
// thread (no worker, so each figure is the database's own time, without thread messaging), runs
// the control-plane migrations, then reserves groups of --group events the way group-commit.ts
// does and times each statement, the COMMIT and the separate mark. Prints a table of µs per
// statement and per event. Also times an empty transaction (BEGIN; COMMIT) and a trivial SELECT,
// the fixed costs any statement pays.
//   npx tsx bench/ingest/ledger-statements.ts [--group 31] [--groups 400]
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import type { Queryable } from '../../core/control/db.js';
import { pgliteOptions } from '../../core/control/pglite-options.js';
import { loadMigrations } from '../../core/control/migrate.js';
import {
  beginIngestGroup,
  IngestGroupIds,
  markGroupsPublished,
  reserveAndSpend,
  reserveEvents,
  writeIngestGroup,
} from '../../ingest/ingest-ledger.store.js';
import { spendCredits } from '../../core/control/credits.js';
import { fireCreditAlerts } from '../../alerts/credits/credit-alerts.js';

const { values } = parseArgs({ options: { group: { type: 'string', default: '31' }, groups: { type: 'string', default: '400' } } });
const GROUP = Number(values.group);
/** Run in rounds of 50 per way, so rounded up to a multiple of 50 (what the figures divide by). */
const GROUPS = Math.ceil(Number(values.groups) / 50) * 50;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-ledger-statements-'));
// Opened as the all-in-one's control plane opens it (settings and parsers).
const pg = new PGlite(path.join(dir, 'control'), pgliteOptions());
await pg.waitReady;

/** CPU time of this process, µs: PGlite runs on this thread, and CPU time holds up on a busy machine where wall time does not. */
const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
/** CPU time per label, µs. */
const spent = new Map<string, number>();
let current = 'other';
const timed: Queryable = {
  async query<T>(sql: string, params?: unknown[]) {
    const t = cpuNow();
    const rows = (await pg.query(sql, params)).rows as T[];
    spent.set(current, (spent.get(current) ?? 0) + cpuNow() - t);
    return rows;
  },
  async exec(sql: string) {
    const t = cpuNow();
    await pg.exec(sql);
    spent.set(current, (spent.get(current) ?? 0) + cpuNow() - t);
  },
};
const as = async <T>(label: string, fn: () => Promise<T>): Promise<T> => {
  current = label;
  try {
    return await fn();
  } finally {
    current = 'other';
  }
};

// Migrations straight on the connection (migrate() needs a ControlDb's transactions).
for (const m of loadMigrations()) await pg.exec(m.sql);
const org = crypto.randomUUID();
await pg.query(`INSERT INTO organizations (id, name) VALUES ($1, 'Bench')`, [org]);
await pg.query(`INSERT INTO credit_balances (organization_id, balance) VALUES ($1, 100000000)`, [org]);
const payload = crypto.randomBytes(300);

let n = 0;
/**
 * One way of committing groups: `separate` as group-commit.ts did before 2026-11-24 (a nextval per
 * group, the credit spend and the mark statements of their own), `folded` as it does now (ids from
 * a block, the spend inside the ledger insert, the previous group's mark inside this group's row insert).
 */
async function runGroups(way: 'separate' | 'folded', count: number, state: { ids: IngestGroupIds; previous: string[] }) {
  for (let g = 0; g < count; g++) {
    await as('BEGIN', () => timed.exec('BEGIN'));
    const group = await as('group id', () => beginIngestGroup(timed, way === 'folded' ? state.ids : undefined));
    const rows = Array.from({ length: GROUP }, () => {
      const key = `k-${n++}`;
      return { idempotencyKey: key, eventId: crypto.randomUUID(), payload, flagReason: null };
    });
    let balance: number;
    if (way === 'folded') {
      ({ balance } = (await as('ledger insert (+ credit spend)', () => reserveAndSpend(timed, group, org, rows, true))).spend!);
    } else {
      await as('ledger insert', () => reserveEvents(timed, group, org, rows));
      ({ balance } = await as('credit spend', () => spendCredits(timed, org, GROUP)));
    }
    await as('credit alerts check', () => fireCreditAlerts(timed, org, balance));
    if (way === 'folded') {
      await as('group row insert (+ mark of the previous group)', () => writeIngestGroup(timed, group, state.previous));
      state.previous = [group.id];
    } else {
      await as('group row insert', () => writeIngestGroup(timed, group));
    }
    await as('COMMIT', () => timed.exec('COMMIT'));
    if (way === 'separate') await as('mark published (own transaction)', () => markGroupsPublished(timed, [group.id]));
  }
}

/** Both ways in alternating rounds of 50 groups, so load from elsewhere on the machine falls on both alike. */
async function compareWays(): Promise<{ separate: Row[]; folded: Row[] }> {
  const totals = { separate: new Map<string, number>(), folded: new Map<string, number>() };
  const state = { ids: new IngestGroupIds(), previous: [] as string[] };
  await runGroups('separate', 50, state);
  await runGroups('folded', 50, state);
  for (let done = 0; done < GROUPS; done += 50) {
    for (const way of ['separate', 'folded'] as const) {
      spent.clear();
      await runGroups(way, 50, state);
      for (const [k, v] of spent) totals[way].set(k, (totals[way].get(k) ?? 0) + v);
    }
  }
  // The last folded group's mark would ride with the next group: done on its own, not counted.
  await markGroupsPublished(timed, state.previous);
  const rows = (m: Map<string, number>): Row[] =>
    [...m].map(([label, us]) => ({ label, usPerGroup: us / GROUPS, usPerEvent: us / GROUPS / GROUP }));
  return { separate: rows(totals.separate), folded: rows(totals.folded) };
}

interface Row {
  label: string;
  usPerGroup: number;
  usPerEvent: number;
}

function print(way: string, rows: Row[]) {
  console.log(`\n${way}: ${GROUPS} groups of ${GROUP} events, CPU time`);
  console.log('| Statement | µs per group | µs per event |\n|---|---|---|');
  for (const r of rows) console.log(`| ${r.label} | ${r.usPerGroup.toFixed(0)} | ${r.usPerEvent.toFixed(1)} |`);
  const total = rows.reduce((a, r) => a + r.usPerGroup, 0);
  console.log(`| **total** | ${total.toFixed(0)} | ${(total / GROUP).toFixed(1)} |`);
}

console.log('PGlite in this thread, on disk; CPU µs of this process');
const ways = await compareWays();
print('separate (nextval per group, mark in its own transaction)', ways.separate);
print('folded (ids from a block, credit spend inside the ledger insert, mark inside the next group row insert)', ways.folded);

spent.clear();
for (let i = 0; i < 2000; i++)
  await as('empty transaction (BEGIN; COMMIT)', async () => {
    await timed.exec('BEGIN');
    await timed.exec('COMMIT');
  });
for (let i = 0; i < 2000; i++) await as('SELECT 1', () => timed.query('SELECT 1'));
const fixed = [...spent].map(([label, us]) => ({ label, usEach: us / 2000 }));

console.log('\n| Fixed cost | µs each |\n|---|---|');
for (const r of fixed) console.log(`| ${r.label} | ${r.usEach.toFixed(0)} |`);
await pg.close();
fs.rmSync(dir, { recursive: true, force: true });
