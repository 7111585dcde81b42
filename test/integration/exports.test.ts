// FOCUS export and scheduled exports through the whole pipeline: a month of events priced by
// hand-set cards, GET /v1/exports/focus as CSV and Parquet checked against FOCUS 1.2's column
// rules, and schedules that land Parquet objects in a real S3-compatible server (S3Proxy) exactly
// once — also when an attempt dies after writing and before recording, and when the store is down
// for an attempt. Every figure is worked out by hand in the comments.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Big } from '../../core/money.js';
import { claimRun, getSchedule } from '../../api/exports/export-schedules.store.js';
import { planExportRuns, runExportTick, writeExportRun, type ExportRunnerDeps } from '../../api/exports/export-runner.js';
import { admin, http } from '../support/http.js';
import {
  apiGet,
  createTenant,
  ingest,
  startPipeline,
  waitForLake,
  type EventBody,
  type Pipeline,
  type Tenant,
} from '../support/pipeline.js';
import { startTestS3Server, type TestS3Server } from '../support/s3-server.js';

const execFileP = promisify(execFile);

const CARDS = [
  { model_slug: 'gpt-4o', input_cost_per_million: '2.5', output_cost_per_million: '10', cache_read_cost_per_million: '1.25' },
  {
    model_slug: 'claude-sonnet-4',
    input_cost_per_million: '3',
    output_cost_per_million: '15',
    cache_creation_cost_per_million: '3.75',
    cache_read_cost_per_million: '0.3',
  },
];

let seq = 0;
const event = (at: string, fields: Record<string, unknown>): EventBody => ({ idempotency_key: `exp-${seq++}`, timestamp: at, ...fields });

const EVENTS = [
  // 1M × 2.5 + 200k × 10 + 400k × 1.25 (per million) = 2.5 + 2 + 0.5 = 5.
  event('2026-10-03T10:00:00Z', {
    model: 'gpt-4o',
    user_id: 'alice',
    agent_id: 'support',
    input_tokens: 1_000_000,
    output_tokens: 200_000,
    cache_read_input_tokens: 400_000,
    metadata: { team: 'red' },
  }),
  // 500k × 2.5 = 1.25 (output 0 tokens, 0 cost).
  event('2026-10-03T12:00:00Z', {
    model: 'gpt-4o',
    user_id: 'alice',
    agent_id: 'support',
    input_tokens: 500_000,
    output_tokens: 0,
    metadata: { team: 'blue' },
  }),
  // 100k × 3 + 10k × 15 + 200k × 3.75 = 0.3 + 0.15 + 0.75 = 1.2.
  event('2026-10-15T08:00:00Z', {
    model: 'claude-sonnet-4',
    provider: 'anthropic',
    user_id: 'bob',
    workflow_id: 'wf-1',
    input_tokens: 100_000,
    output_tokens: 10_000,
    cache_creation_input_tokens: 200_000,
  }),
  // Its own cost 0.42: token classes 0, the rest (0.42) is the `other` SKU.
  event('2026-10-31T23:59:59Z', { model: 'gpt-4o', input_tokens: 1000, output_tokens: 1000, cost_override: '0.42' }),
  // Outside October: 2.5 each.
  event('2026-09-30T23:59:59Z', { model: 'gpt-4o', input_tokens: 1_000_000, output_tokens: 0 }),
  event('2026-11-01T00:00:00Z', { model: 'gpt-4o', input_tokens: 1_000_000, output_tokens: 0 }),
];
/** 5 + 1.25 + 1.2 + 0.42. */
const OCTOBER_COST = '7.87';
const OCTOBER = { start_date: '2026-10-01', end_date: '2026-11-01' };

// ------------------------------------------------------------------------------------------------
// FOCUS 1.2's column rules, as the specification states them for the columns we write.

const DECIMAL = /^-?\d+(\.\d+)?$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const MANDATORY = [
  'BilledCost', 'BillingAccountId', 'BillingAccountName', 'BillingCurrency', 'BillingPeriodEnd', 'BillingPeriodStart',
  'ChargeCategory', 'ChargeClass', 'ChargeDescription', 'ChargePeriodEnd', 'ChargePeriodStart', 'ConsumedQuantity', 'ConsumedUnit',
  'ContractedCost', 'ContractedUnitPrice', 'EffectiveCost', 'InvoiceIssuerName', 'ListCost', 'ListUnitPrice', 'PricingCategory',
  'PricingQuantity', 'PricingUnit', 'ProviderName', 'PublisherName', 'ServiceCategory', 'ServiceName', 'SkuId', 'SkuPriceId', 'Tags',
]; // biome-ignore format: a list
const DECIMALS = [
  'BilledCost',
  'ConsumedQuantity',
  'ContractedCost',
  'ContractedUnitPrice',
  'EffectiveCost',
  'ListCost',
  'ListUnitPrice',
  'PricingQuantity',
];
const DATETIMES = ['BillingPeriodEnd', 'BillingPeriodStart', 'ChargePeriodEnd', 'ChargePeriodStart'];
const NEVER_NULL = [
  'BilledCost', 'BillingAccountId', 'BillingCurrency', 'BillingPeriodEnd', 'BillingPeriodStart', 'ChargeCategory', 'ChargeDescription',
  'ChargePeriodEnd', 'ChargePeriodStart', 'ContractedCost', 'EffectiveCost', 'InvoiceIssuerName', 'ListCost', 'ProviderName',
  'PublisherName', 'ServiceCategory', 'ServiceName',
]; // biome-ignore format: a list
/** Not null for a Usage charge that is not a correction. */
const USAGE_NOT_NULL = [
  'ConsumedQuantity',
  'ConsumedUnit',
  'ContractedUnitPrice',
  'ListUnitPrice',
  'PricingQuantity',
  'PricingUnit',
  'SkuId',
  'SkuPriceId',
];
const ALLOWED: Record<string, ReadonlyArray<string | null>> = {
  ChargeCategory: ['Usage', 'Purchase', 'Tax', 'Credit', 'Adjustment'],
  ChargeClass: [null, 'Correction'],
  ChargeFrequency: [null, 'One-Time', 'Recurring', 'Usage-Based'],
  PricingCategory: [null, 'Standard', 'Dynamic', 'Committed', 'Other'],
  ServiceCategory: ['AI and Machine Learning', 'Analytics', 'Business Applications', 'Compute', 'Databases', 'Developer Tools', 'Multicloud', 'Identity', 'Integration', 'Internet of Things', 'Management and Governance', 'Media', 'Migration', 'Mobile', 'Networking', 'Security', 'Storage', 'Web', 'Other'],
}; // biome-ignore format: a list

type Row = Record<string, string | null>;

/** Every rule broken by the rows, as text (none: conforming). */
function focusViolations(header: readonly string[], rows: readonly Row[]): string[] {
  const out: string[] = [];
  for (const c of MANDATORY) if (!header.includes(c)) out.push(`missing column ${c}`);
  for (const c of header)
    if (!/^[A-Z][A-Za-z]*$/.test(c) && !c.startsWith('x_')) out.push(`column ${c} is neither FOCUS-named nor x_-prefixed`);
  rows.forEach((r, i) => {
    const at = (m: string) => out.push(`row ${i}: ${m}`);
    for (const c of NEVER_NULL) if (r[c] === null) at(`${c} is null`);
    for (const c of DECIMALS) if (r[c] !== null && !DECIMAL.test(r[c]!)) at(`${c} "${r[c]}" is not a decimal`);
    for (const c of DATETIMES) if (r[c] !== null && !DATETIME.test(r[c]!)) at(`${c} "${r[c]}" is not an ISO 8601 UTC datetime`);
    for (const [c, allowed] of Object.entries(ALLOWED)) if (!allowed.includes(r[c] ?? null)) at(`${c} "${r[c]}" is not an allowed value`);
    if (!/^[A-Z]{3}$/.test(r.BillingCurrency ?? '')) at('BillingCurrency is not ISO 4217');
    if (r.ChargeCategory === 'Usage' && r.ChargeClass !== 'Correction')
      for (const c of USAGE_NOT_NULL) if (r[c] === null) at(`${c} is null on usage`);
    if (r.SkuPriceId === null && r.ConsumedQuantity !== null) at('ConsumedQuantity without SkuPriceId');
    if (!(r.ChargePeriodEnd! > r.ChargePeriodStart!)) at('ChargePeriodEnd is not after ChargePeriodStart');
    if (!(r.BillingPeriodEnd! > r.BillingPeriodStart!)) at('BillingPeriodEnd is not after BillingPeriodStart');
    if (r.ChargePeriodStart! < r.BillingPeriodStart! || r.ChargePeriodEnd! > r.BillingPeriodEnd!)
      at('charge period outside its billing period');
    // Our unit prices are exact in this month (one rate per row): cost = unit price × pricing quantity.
    for (const [cost, price] of [
      ['ListCost', 'ListUnitPrice'],
      ['ContractedCost', 'ContractedUnitPrice'],
    ] as const) {
      if (!new Big(r[cost]!).eq(new Big(r[price]!).times(r.PricingQuantity!))) at(`${cost} ≠ ${price} × PricingQuantity`);
    }
    const tags = JSON.parse(r.Tags ?? '{}') as unknown;
    if (typeof tags !== 'object' || tags === null || Array.isArray(tags) || Object.values(tags).some((v) => typeof v !== 'string')) {
      at('Tags is not a JSON object of strings');
    }
  });
  return out;
}

/** RFC 4180 CSV (quoted cells, CRLF) as rows of cells; an empty cell is null. */
function parseCsv(text: string): { header: string[]; rows: Row[] } {
  const records: string[][] = [];
  let cell = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted && ch === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (ch === '"') {
      quoted = !quoted;
    } else if (!quoted && ch === ',') {
      record.push(cell);
      cell = '';
    } else if (!quoted && ch === '\r' && text[i + 1] === '\n') {
      records.push([...record, cell]);
      record = [];
      cell = '';
      i++;
    } else {
      cell += ch;
    }
  }
  const [header, ...rest] = records;
  return { header: header!, rows: rest.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] === '' ? null : r[i]!]))) };
}

const sumOf = (rows: readonly Row[], column: string) => rows.reduce((s, r) => s.plus(r[column] ?? '0'), new Big(0)).toFixed();

// ------------------------------------------------------------------------------------------------

let p: Pipeline;
let t: Tenant;
let other: Tenant;
let tmp: string;
let apiNow = new Date();

async function download(tenant: Tenant, query: Record<string, string>) {
  const qs = new URLSearchParams(query).toString();
  const res = await fetch(`${p.url}/v1/exports/focus?${qs}`, { headers: { authorization: `Bearer ${tenant.readKey}` } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** A DuckDB that reads Parquet locally or from the test's S3 server. */
async function duck(s3?: TestS3Server) {
  const instance = await DuckDBInstance.create(':memory:', { extension_directory: p.host.host.ctx.config.lake.extensionDirectory });
  const conn = await instance.connect();
  if (s3) {
    await conn.run('LOAD httpfs');
    await conn.run(
      `CREATE SECRET t (TYPE s3, PROVIDER config, KEY_ID '${s3.accessKeyId}', SECRET '${s3.secretAccessKey}', REGION '${s3.region}', ENDPOINT '${s3.hostPort}', URL_STYLE 'path', USE_SSL false)`,
    );
  }
  return {
    rows: async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[],
    close: () => {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-exports-'));
  // The api's clock: schedules are made "at" it (their first period is the one due then).
  p = await startPipeline({ now: () => apiNow, api: { exports: { intervalMs: 0 } } });
  t = await createTenant(p, { name: 'Acme exports', rateCards: CARDS });
  other = await createTenant(p, { name: 'other', rateCards: CARDS });
  await ingest(p, t, EVENTS);
  await ingest(p, other, [event('2026-10-03T10:00:00Z', { model: 'gpt-4o', input_tokens: 1_000_000, output_tokens: 0 })]);
  await waitForLake(p, t.organizationId, EVENTS.length);
  await waitForLake(p, other.organizationId, 1);
}, 180_000);

afterAll(async () => {
  await p?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('GET /v1/exports/focus', () => {
  it('a month as CSV passes the FOCUS 1.2 column rules and sums to the cost endpoints total exactly', async () => {
    const res = await download(t, OCTOBER);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const { header, rows } = parseCsv(res.body.toString('utf8'));
    expect(focusViolations(header, rows)).toEqual([]);
    expect(res.headers.get('x-total-rows')).toBe('9');
    const api = await apiGet(p, t.readKey, '/cost-data/by-end-user', OCTOBER);
    expect(api.body.total_cost).toBe(OCTOBER_COST);
    for (const c of ['BilledCost', 'EffectiveCost', 'ListCost', 'ContractedCost']) expect(sumOf(rows, c)).toBe(OCTOBER_COST);
    const brief = rows.map((r) => [
      r.ChargePeriodStart,
      r.ProviderName,
      r.SkuId,
      r.ConsumedQuantity,
      r.PricingQuantity,
      r.ListUnitPrice,
      r.BilledCost,
      r.Tags,
    ]);
    expect(brief).toEqual([
      [
        '2026-10-03T00:00:00Z',
        'OpenAI',
        'openai/gpt-4o/input',
        '1500000',
        '1.5',
        '2.5',
        '3.75',
        expect.stringContaining('"marginal/agent":"support"'),
      ],
      [
        '2026-10-03T00:00:00Z',
        'OpenAI',
        'openai/gpt-4o/output',
        '200000',
        '0.2',
        '10',
        '2',
        expect.stringContaining('"marginal/end_user":"alice"'),
      ],
      ['2026-10-03T00:00:00Z', 'OpenAI', 'openai/gpt-4o/cache-read', '400000', '0.4', '1.25', '0.5', expect.any(String)],
      [
        '2026-10-15T00:00:00Z',
        'Anthropic',
        'anthropic/claude-sonnet-4/input',
        '100000',
        '0.1',
        '3',
        '0.3',
        expect.stringContaining('"marginal/workflow":"wf-1"'),
      ],
      [
        '2026-10-15T00:00:00Z',
        'Anthropic',
        'anthropic/claude-sonnet-4/output',
        '10000',
        '0.01',
        '15',
        '0.15',
        expect.stringContaining('"marginal/end_user":"bob"'),
      ],
      ['2026-10-15T00:00:00Z', 'Anthropic', 'anthropic/claude-sonnet-4/cache-write', '200000', '0.2', '3.75', '0.75', expect.any(String)],
      ['2026-10-31T00:00:00Z', 'OpenAI', 'openai/gpt-4o/input', '1000', '0.001', '0', '0', '{}'],
      ['2026-10-31T00:00:00Z', 'OpenAI', 'openai/gpt-4o/output', '1000', '0.001', '0', '0', '{}'],
      // The override's 0.42 that no token class holds: one request.
      ['2026-10-31T00:00:00Z', 'OpenAI', 'openai/gpt-4o/other', '1', '1', '0.42', '0.42', '{}'],
    ]);
    expect(new Set(rows.map((r) => r.BillingPeriodStart))).toEqual(new Set(['2026-10-01T00:00:00Z']));
    expect(new Set(rows.map((r) => r.BillingAccountName))).toEqual(new Set(['Acme exports']));
  });

  it('as Parquet: DECIMAL(38,12) costs and UTC timestamps, the same rows and total', async () => {
    const res = await download(t, { ...OCTOBER, format: 'parquet' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    const file = path.join(tmp, 'focus.parquet');
    fs.writeFileSync(file, res.body);
    const db = await duck();
    try {
      const types = Object.fromEntries(
        (await db.rows(`DESCRIBE SELECT * FROM read_parquet('${file}')`)).map((r) => [r.column_name as string, r.column_type as string]),
      );
      expect(types.BilledCost).toBe('DECIMAL(38,12)');
      expect(types.ConsumedQuantity).toBe('DECIMAL(38,12)');
      expect(types.ChargePeriodStart).toBe('TIMESTAMP WITH TIME ZONE');
      expect(types.Tags).toBe('VARCHAR');
      const [sums] = await db.rows(
        `SELECT count(*)::INTEGER AS n, sum(BilledCost)::VARCHAR AS billed, count(*) FILTER (WHERE ChargePeriodEnd <= ChargePeriodStart)::INTEGER AS bad
           FROM read_parquet('${file}')`,
      );
      // sum of DECIMAL(38,12) prints its 12 places.
      expect(sums).toEqual({ n: 9, billed: '7.870000000000', bad: 0 });
    } finally {
      db.close();
    }
  });

  it('chosen dimensions split the rows and appear in Tags; the total stays', async () => {
    const res = await download(t, { ...OCTOBER, dimensions: 'team' });
    const { header, rows } = parseCsv(res.body.toString('utf8'));
    expect(focusViolations(header, rows)).toEqual([]);
    // Event 1 (red) and event 2 (blue) no longer share their input row: 9 + 1 rows.
    expect(rows).toHaveLength(10);
    expect(sumOf(rows, 'BilledCost')).toBe(OCTOBER_COST);
    const input = rows.filter((r) => r.SkuId === 'openai/gpt-4o/input' && r.ChargePeriodStart === '2026-10-03T00:00:00Z');
    expect(input.map((r) => [JSON.parse(r.Tags!).team, r.ConsumedQuantity, r.BilledCost])).toEqual([
      ['blue', '500000', '1.25'],
      ['red', '1000000', '2.5'],
    ]);
  });

  it('the CLI (admin twin of the endpoint) writes the same file to --out', async () => {
    const out = path.join(tmp, 'cli-focus.csv');
    const run = await execFileP(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/cli.ts',
        'exports',
        'focus',
        '--org',
        t.organizationId,
        '--start',
        '2026-10-01',
        '--end',
        '2026-11-01',
        '--out',
        out,
      ],
      { env: { ...process.env, MARGINAL_URL: p.url, MARGINAL_ADMIN_TOKEN: p.host.adminToken } },
    );
    expect(JSON.parse(run.stdout)).toEqual({ file: out, bytes: fs.statSync(out).size, rows: 9 });
    expect(fs.readFileSync(out)).toEqual((await download(t, OCTOBER)).body);
  });

  it('refuses bad input naming the field', async () => {
    for (const [query, field] of [
      [{ ...OCTOBER, start_date: '2026-10-01T12:00:00Z' }, 'start_date'],
      [{ ...OCTOBER, format: 'xlsx' }, 'format'],
      [{ ...OCTOBER, dimensions: 'team,team' }, 'dimensions'],
      [{ ...OCTOBER, dimensions: 'agent_id' }, 'dimensions'],
    ] as const) {
      const res = await apiGet(p, t.readKey, '/exports/focus', query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.error.details.field).toBe(field);
    }
  });
});

describe('scheduled exports', () => {
  let s3: TestS3Server;
  let deps: ExportRunnerDeps;
  /** 2026-11-01T02:00Z: October (monthly) and October 31 (daily) have ended and settled an hour. */
  const T0 = new Date('2026-11-01T02:00:00Z');
  const MINUTE = 60_000;

  beforeAll(async () => {
    apiNow = T0;
    s3 = await startTestS3Server(tmp, 'exports');
    const ctx = p.host.host.ctx;
    deps = {
      db: ctx.db,
      lake: ctx.services.lakeQuery!,
      masterKey: ctx.masterKey,
      dataDir: ctx.config.dataDir,
      extensionDirectory: ctx.config.lake.extensionDirectory,
    };
  }, 120_000);

  afterAll(async () => {
    await s3?.stop();
  });

  const s3Access = () => ({
    endpoint: s3.hostPort,
    region: s3.region,
    use_ssl: false,
    access_key_id: s3.accessKeyId,
    secret_access_key: s3.secretAccessKey,
  });
  const createSchedule = (tenant: Tenant, body: Record<string, unknown>) =>
    admin(p.host, 'POST', `/organizations/${tenant.organizationId}/export-schedules`, body);
  const runsOf = async (tenant: Tenant, scheduleId: string) =>
    (await apiGet(p, tenant.readKey, '/exports/runs', { schedule_id: scheduleId })).body.runs as Array<Record<string, unknown>>;
  const exportEvents = async (tenant: Tenant) =>
    (
      (await admin(p.host, 'GET', `/organizations/${tenant.organizationId}/webhook-events?limit=1000`)).body.events as Array<{
        type: string;
        data: Record<string, unknown>;
      }>
    ).filter((e) => e.type.startsWith('export.'));

  it('a monthly FOCUS export lands once in S3 even when an attempt dies after writing and before recording', async () => {
    const created = await createSchedule(t, { kind: 'focus', frequency: 'monthly', destination: 's3://exports/finance/', s3: s3Access() });
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain(s3.secretAccessKey);
    expect(created.body.s3.secret_key_hint).toBe(s3.secretAccessKey.slice(-4));
    const id = created.body.id as string;
    const key = `finance/${t.organizationId}/focus/monthly/2026-10.parquet`;

    // The first attempt claims the run and writes the object, then its process dies (no status).
    await planExportRuns(deps.db, T0);
    const claimed = await claimRun(deps.db, T0, 15 * MINUTE);
    expect(claimed?.object_key).toBe(key);
    await writeExportRun(deps, (await getSchedule(deps.db, id))!, claimed!);
    expect((await runsOf(t, id)).map((r) => [r.status, r.attempts])).toEqual([['running', 1]]);

    // Before the lease passes nobody takes it; after, the next tick writes the same key again.
    expect(await runExportTick(deps, () => new Date(T0.getTime() + MINUTE))).toBe(0);
    expect(await runExportTick(deps, () => new Date(T0.getTime() + 16 * MINUTE))).toBe(1);
    const [run] = await runsOf(t, id);
    expect(run).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      object_key: key,
      rows: 9,
      period_start: '2026-10-01',
      period_end: '2026-11-01',
    });
    expect(run!.bytes).toBeGreaterThan(0);

    const db = await duck(s3);
    try {
      const objects = await db.rows(`SELECT file FROM glob('s3://exports/finance/**') ORDER BY file`);
      expect(objects.map((o) => o.file)).toEqual([`s3://exports/${key}`]);
      const [sums] = await db.rows(
        `SELECT count(*)::INTEGER AS n, sum(BilledCost)::VARCHAR AS billed FROM read_parquet('s3://exports/${key}')`,
      );
      expect(sums).toEqual({ n: 9, billed: '7.870000000000' });
      const [size] = await db.rows(`SELECT size::INTEGER AS size FROM read_blob('s3://exports/${key}')`);
      expect(size!.size).toBe(run!.bytes);
    } finally {
      db.close();
    }
    // One export.completed, for the attempt that recorded.
    const events = await exportEvents(t);
    expect(events.map((e) => [e.type, e.data.object_key, e.data.rows, e.data.attempts])).toEqual([['export.completed', key, 9, 2]]);
    // Another tick finds nothing to do.
    expect(await runExportTick(deps, () => new Date(T0.getTime() + 60 * MINUTE))).toBe(0);
  });

  it('a daily events export retries with backoff while the store is down, then lands once', async () => {
    const created = await createSchedule(other, { kind: 'events', frequency: 'daily', destination: 's3://exports/raw', s3: s3Access() });
    const id = created.body.id as string;
    await s3.stop();
    const t1 = new Date(T0.getTime() + 2 * 60 * MINUTE);
    await planExportRuns(deps.db, t1);
    expect(await runExportTick(deps, () => t1)).toBeGreaterThanOrEqual(1);
    const [failed] = await runsOf(other, id);
    // The first retry waits 1 minute (core/backoff: 1 min doubling).
    expect(failed).toMatchObject({
      status: 'pending',
      attempts: 1,
      rows: null,
      next_attempt_at: new Date(t1.getTime() + MINUTE).toISOString(),
    });
    expect(failed!.error).toEqual(expect.any(String));
    expect(String(failed!.error)).not.toContain(s3.secretAccessKey);
    await s3.start();
    expect(await runExportTick(deps, () => new Date(t1.getTime() + 2 * MINUTE))).toBe(1);
    const [run] = await runsOf(other, id);
    // October 31 of the other tenant: no events that day.
    expect(run).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      rows: 0,
      object_key: `raw/${other.organizationId}/events/daily/2026-10-31.parquet`,
    });
  });

  it('a folder under DATA_DIR: the daily events of one day and the monthly rollups, written by rename', async () => {
    const created = await createSchedule(t, { kind: 'events', frequency: 'daily', destination: 'exports/acme' });
    expect(created.status).toBe(201);
    const rollups = await createSchedule(t, { kind: 'rollups', frequency: 'monthly', destination: 'exports/acme' });
    const t2 = new Date(T0.getTime() + 3 * 60 * MINUTE);
    await runExportTick(deps, () => t2);
    const [run] = await runsOf(t, created.body.id);
    // October 31: the one override event.
    expect(run).toMatchObject({ status: 'succeeded', attempts: 1, rows: 1 });
    const file = path.join(deps.dataDir, 'exports/acme', String(run!.object_key));
    const db = await duck();
    try {
      const [row] = await db.rows(`SELECT count(*)::INTEGER AS n, sum(total_cost)::VARCHAR AS cost FROM read_parquet('${file}')`);
      expect(row).toEqual({ n: 1, cost: '0.420000000000' });
      // October's daily cost rollup: alice's two gpt-4o events share a row (same day and keys), bob's
      // claude-sonnet-4 event and the override are one row each; 5 + 1.25 + 1.2 + 0.42.
      const [month] = await runsOf(t, rollups.body.id);
      expect(month).toMatchObject({ status: 'succeeded', rows: 3, object_key: `${t.organizationId}/rollups/monthly/2026-10.parquet` });
      const [sums] = await db.rows(
        `SELECT count(*)::INTEGER AS n, sum(total_cost)::VARCHAR AS cost, sum(event_count)::INTEGER AS events
           FROM read_parquet('${path.join(deps.dataDir, 'exports/acme', String(month!.object_key))}')`,
      );
      expect(sums).toEqual({ n: 3, cost: '7.870000000000', events: 4 });
    } finally {
      db.close();
    }
    expect(fs.readdirSync(path.join(deps.dataDir, 'exports-staging'))).toEqual([]);
  });

  it('schedules are listed without secrets, refused naming the field, and deleted', async () => {
    const list = await admin(p.host, 'GET', `/organizations/${t.organizationId}/export-schedules`);
    expect(list.status).toBe(200);
    // Made at the same api time: in no particular order.
    const kinds = list.body.schedules.map((s: { kind: string; frequency: string }) => `${s.kind}/${s.frequency}`);
    expect(kinds.sort()).toEqual(['events/daily', 'focus/monthly', 'rollups/monthly']);
    expect(JSON.stringify(list.body)).not.toContain(s3.secretAccessKey);
    for (const [body, field] of [
      [{ kind: 'csv', frequency: 'daily', destination: 'x' }, 'kind'],
      [{ kind: 'focus', frequency: 'hourly', destination: 'x' }, 'frequency'],
      [{ kind: 'focus', frequency: 'daily', destination: '../outside' }, 'destination'],
      [{ kind: 'focus', frequency: 'daily', destination: 's3://exports/x' }, 's3'],
      [{ kind: 'focus', frequency: 'daily', destination: 's3://A/x', s3: s3Access() }, 'destination'],
    ] as const) {
      const res = await createSchedule(t, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details.field).toBe(field);
    }
    const id = list.body.schedules.find((s: { kind: string }) => s.kind === 'events').id;
    expect((await admin(p.host, 'DELETE', `/organizations/${t.organizationId}/export-schedules/${id}`)).status).toBe(204);
    expect((await admin(p.host, 'DELETE', `/organizations/${t.organizationId}/export-schedules/${id}`)).status).toBe(404);
    // Audited with the admin token as actor, the view before and after, never the secret.
    const audit = await p.host.db.query<{ action: string; actor_kind: string; details: unknown }>(
      `SELECT action, actor_kind, details FROM audit_events WHERE organization_id = $1 AND action LIKE 'export_schedule.%' ORDER BY occurred_at`,
      [t.organizationId],
    );
    expect(audit.map((r) => [r.action, r.actor_kind])).toEqual([
      ['export_schedule.created', 'admin_token'],
      ['export_schedule.created', 'admin_token'],
      ['export_schedule.created', 'admin_token'],
      ['export_schedule.deleted', 'admin_token'],
    ]);
    expect(JSON.stringify(audit)).not.toContain(s3.secretAccessKey);
    // Another organization's runs are not listed.
    expect(
      (await http(p.url, 'GET', '/v1/exports/runs', { token: other.readKey })).body.runs.every((r: { object_key: string }) =>
        r.object_key.includes(other.organizationId),
      ),
    ).toBe(true);
  });

  it('an attempt SIGKILLed in its own process leaves no half object; the next attempt lands it once', async () => {
    const created = await createSchedule(t, { kind: 'events', frequency: 'daily', destination: 's3://exports/killed', s3: s3Access() });
    const key = `killed/${t.organizationId}/events/daily/2026-10-31.parquet`;
    await planExportRuns(deps.db, T0);
    const claimed = (await claimRun(deps.db, T0, 15 * MINUTE))!;
    expect(claimed.object_key).toBe(key);
    const schedule = (await getSchedule(deps.db, created.body.id))!;
    const job = {
      lakeDir: p.lakeDir,
      dataDir: deps.dataDir,
      extensionDirectory: deps.extensionDirectory,
      masterKey: deps.masterKey.toString('hex'),
    };
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/support/export-child.ts', JSON.stringify({ ...job, schedule, run: claimed })],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    // Killed as soon as its staged file exists: while it copies the lake or uploads.
    const staged = path.join(deps.dataDir, 'exports-staging', `${claimed.id}-1.parquet`);
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (fs.existsSync(staged)) child.kill('SIGKILL');
      }, 2);
      child.on('exit', (code, signal) => {
        clearInterval(timer);
        return signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited ${code}: ${stderr}`));
      });
    });
    const db = await duck(s3);
    try {
      const listed = async () => (await db.rows(`SELECT file FROM glob('s3://exports/killed/**')`)).map((o) => o.file);
      // Whole or nothing: an object that exists reads as the day's one event.
      const before = await listed();
      if (before.length > 0)
        expect((await db.rows(`SELECT count(*)::INTEGER AS n FROM read_parquet('s3://exports/${key}')`))[0]).toEqual({ n: 1 });
      expect((await runsOf(t, created.body.id)).map((r) => [r.status, r.attempts])).toEqual([['running', 1]]);
      expect(await runExportTick(deps, () => new Date(T0.getTime() + 16 * MINUTE))).toBe(1);
      expect((await runsOf(t, created.body.id))[0]).toMatchObject({ status: 'succeeded', attempts: 2, rows: 1 });
      expect(await listed()).toEqual([`s3://exports/${key}`]);
      const [row] = await db.rows(
        `SELECT count(*)::INTEGER AS n, sum(total_cost)::VARCHAR AS cost FROM read_parquet('s3://exports/${key}')`,
      );
      expect(row).toEqual({ n: 1, cost: '0.420000000000' });
    } finally {
      db.close();
    }
    // The killed attempt's staged file went with the next attempt.
    expect(fs.readdirSync(path.join(deps.dataDir, 'exports-staging'))).toEqual([]);
  });

  it('a run whose last attempt fails is failed and announced once by export.failed', async () => {
    const created = await createSchedule(other, { kind: 'rollups', frequency: 'daily', destination: 's3://exports/gone', s3: s3Access() });
    expect(created.status).toBe(201);
    await s3.stop();
    try {
      // One attempt allowed: the store is down, so the first attempt is the last.
      expect(await runExportTick(deps, () => new Date(T0.getTime() + 4 * 60 * MINUTE), { maxAttempts: 1 })).toBe(1);
      expect(await runExportTick(deps, () => new Date(T0.getTime() + 5 * 60 * MINUTE), { maxAttempts: 1 })).toBe(0);
    } finally {
      await s3.start();
    }
    const [run] = await runsOf(other, created.body.id);
    expect(run).toMatchObject({ status: 'failed', attempts: 1, rows: null, period_start: '2026-10-31' });
    const failed = (await exportEvents(other)).filter((e) => e.type === 'export.failed');
    expect(failed.map((e) => [e.data.schedule_id, e.data.run_id, e.data.attempts])).toEqual([[created.body.id, run!.id, 1]]);
    expect(failed[0]!.data.error).toEqual(expect.any(String));
    expect(JSON.stringify(failed)).not.toContain(s3.secretAccessKey);
  });

  it('a daily FOCUS schedule split by a dimension, backfilled from October 1: one file a day, the month whole', async () => {
    for (const [body, field] of [
      [{ kind: 'events', frequency: 'daily', destination: 'x', dimensions: 'team' }, 'dimensions'],
      [{ kind: 'focus', frequency: 'daily', destination: 'x', dimensions: 'agent_id' }, 'dimensions'],
      // More than 12 months before the api's clock (2026-11-01).
      [{ kind: 'focus', frequency: 'daily', destination: 'x', backfill_from: '2025-10-31' }, 'backfill_from'],
      [{ kind: 'focus', frequency: 'daily', destination: 'x', backfill_from: '2026-02-30' }, 'backfill_from'],
    ] as const) {
      const res = await createSchedule(t, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details.field).toBe(field);
    }
    const created = await createSchedule(t, {
      kind: 'focus',
      frequency: 'daily',
      destination: 'exports/backfill',
      dimensions: 'team',
      backfill_from: '2026-10-01',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.dimensions).toEqual(['team']);
    // Made at 2026-11-01T02:00Z: October 1 to 30 are backfilled at once; October 31 is the schedule's own first day.
    const backfilled = await runsOf(t, created.body.id);
    expect(backfilled.map((r) => r.period_start)).toEqual(
      Array.from({ length: 30 }, (_, i) => `2026-10-${String(30 - i).padStart(2, '0')}`),
    );
    expect(backfilled.every((r) => r.status === 'pending')).toBe(true);
    // 20 runs a tick: two ticks do the 31 days.
    await runExportTick(deps, () => new Date(T0.getTime() + 20 * MINUTE));
    await runExportTick(deps, () => new Date(T0.getTime() + 21 * MINUTE));
    const runs = await runsOf(t, created.body.id);
    expect(runs).toHaveLength(31);
    expect(runs.filter((r) => r.status !== 'succeeded')).toEqual([]);
    // The month's FOCUS rows split by team, as GET /v1/exports/focus?dimensions=team gives them: 10 rows, 7.87.
    expect(runs.reduce((n, r) => n + Number(r.rows), 0)).toBe(10);
    const files = path.join(deps.dataDir, 'exports/backfill', t.organizationId, 'focus/daily', '*.parquet');
    expect(fs.readdirSync(path.dirname(files))).toHaveLength(31);
    const db = await duck();
    try {
      const [sums] = await db.rows(`SELECT count(*)::INTEGER AS n, sum(BilledCost)::VARCHAR AS billed FROM read_parquet('${files}')`);
      expect(sums).toEqual({ n: 10, billed: '7.870000000000' });
      const input = await db.rows(
        `SELECT json_extract_string(Tags, '$.team') AS team, BilledCost::VARCHAR AS cost FROM read_parquet('${files}')
          WHERE SkuId = 'openai/gpt-4o/input' AND ChargePeriodStart = TIMESTAMPTZ '2026-10-03 00:00:00+00' ORDER BY team`,
      );
      expect(input).toEqual([
        { team: 'blue', cost: '1.250000000000' },
        { team: 'red', cost: '2.500000000000' },
      ]);
    } finally {
      db.close();
    }
  });
});
