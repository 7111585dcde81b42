// What the api does once at start, before it listens, so that the first request of a fresh
// process does not pay for first uses (issue 18, "cold equals warm"; bench/results/api-cold.md):
//   - the control plane: each statement a read request runs per request (API key lookup, rate
//     cards, dimensions, end users, ledger count, revenue connections) once, for the organizations
//     with the most rows in the lake. On PGlite a statement's first run costs 5–35 ms (planning,
//     catalog and table pages), and the PGlite thread answers one statement at a time, so a cold
//     first request waited for its own statements and for the webhook worker's first poll;
//   - those organizations' revenue records, parsed into the revenue cache (revenue/revenue-cache.ts):
//     a margin request then checks only their version instead of reading 13k records (~140 ms);
//   - the lake's catalog: its snapshot and every organization's day versions read (LakeQuery.warmUp).
//     The organizations come from the catalog, so a fresh host with nothing local prepares the
//     same ones;
//   - the lake, for those organizations: their cost days of the last week up to now, as a dashboard's
//     first request asks them (`{{costs}}`): the days built, or read from what a previous process
//     persisted, into the DerivedCache, and today's raw events read: the tables' first reads (files
//     and footers on the object store), which a first request otherwise pays (bench/results/lake.md's
//     cold figures on S3). The versions read are reused while the snapshot stands (ducklake-days.ts).
// Nothing here changes an answer: every cache it fills is checked per request as before (the
// revenue version, the rate book's rates_version). Bounded by a time budget; failures are
// logged and ignored (the request then does the work as before).
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../core/app-context.js';
import { API_KEY_PREFIX } from '../../core/auth/secrets.js';
import { listDimensions } from '../../core/control/dimensions.js';
import { getEndUserByExternalId, listEndUsers } from '../../core/control/end-users.js';
import { countLedgerEvents } from '../../ingest/ingest-ledger-counts.store.js';
import type { RateBook } from '../../pricing/rate-book.js';
import { cachedRevenue } from '../../revenue/revenue-cache.js';
import { activeRevenueSources } from '../../revenue/revenue-sources.js';
import { DAY_MS } from '../../core/time.js';
import type { LakeQuery } from './lake-query.js';

export interface PrepareReadsOptions {
  /** Organizations prepared, most lake rows first (default 4). */
  organizations?: number;
  /** Stops after the step running when this much time has passed (default 5 s). */
  budgetMs?: number;
  /** The api's clock (for the last week of cost days); default the wall clock. */
  now?: () => Date;
}

/** The cost rows of a range, counted: builds (or loads) its whole days and reads its partial day. */
const COSTS_WARM_UP = 'SELECT count(*) AS n FROM {{costs}} c WHERE c.organization_id = $org';

export interface PreparedReads {
  organizations: number;
  ms: number;
}

export async function prepareReads(
  ctx: Pick<AppContext, 'db' | 'auth'>,
  lake: LakeQuery,
  rateBook: RateBook,
  options: PrepareReadsOptions = {},
): Promise<PreparedReads> {
  const started = performance.now();
  const deadline = started + (options.budgetMs ?? 5_000);
  const { db } = ctx;
  // A random key: the lookup statement runs and misses (only that miss is cached, for 2 s).
  await ctx.auth.authenticate(`${API_KEY_PREFIX}${randomBytes(24).toString('base64url')}`);
  const orgs = (await lake.duckLakeOrganizations()).slice(0, options.organizations ?? 4);
  await lake.warmUp();
  let prepared = 0;
  for (const org of orgs) {
    if (performance.now() > deadline) break;
    await rateBook.ratesFor(org);
    await listDimensions(db, org);
    await listEndUsers(db, org);
    await getEndUserByExternalId(db, org, '');
    await countLedgerEvents(db, org);
    await activeRevenueSources(db, org);
    // The first call reads the records with their version; a hit checks the version alone.
    await cachedRevenue(db, org);
    await cachedRevenue(db, org);
    prepared++;
  }
  const end = (options.now ?? (() => new Date()))();
  const recent = { start: new Date(Math.floor(end.getTime() / DAY_MS) * DAY_MS - 7 * DAY_MS), end };
  for (const organizationId of orgs.slice(0, prepared)) {
    if (performance.now() > deadline) break;
    await lake.row({ organizationId, range: recent }, COSTS_WARM_UP);
  }
  return { organizations: prepared, ms: Math.round(performance.now() - started) };
}
