// Reading a provider's cost report into cost lines (UTC day, provider, model, project, USD amount).
// Three shapes: OpenAI's organization costs page (GET /v1/organization/costs, daily buckets of
// `organization.costs.result`), Anthropic's cost report (GET /v1/organizations/cost_report, whose
// amounts are in cents) and a generic CSV. Amounts stay exact decimals (big.js); a malformed
// report is a ValidationError naming the field. Pure: no I/O.
import { ValidationError } from '../core/errors.js';
import { Big, isDecimalString } from '../core/money.js';
import { openAiLineItemModel, reconciliationModel } from './model-keys.js';

export type ReportFormat = 'openai_costs' | 'anthropic_cost_report' | 'csv';
export const REPORT_FORMATS: readonly ReportFormat[] = ['openai_costs', 'anthropic_cost_report', 'csv'];

export interface ProviderCostLine {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  provider: string;
  /** Already through reconciliationModel. */
  model: string;
  /** Project, workspace or key; '' when the report has none. */
  project: string;
  /** USD. */
  amount: Big;
}

/** Provider costs the report does not split by model (no line item, no model). */
export const ALL_MODELS = '(all models)';
const MAX_LINES = 100_000;
const DAY_SECONDS = 86_400;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function parseProviderReport(format: ReportFormat, report: unknown): ProviderCostLine[] {
  const lines =
    format === 'openai_costs'
      ? parseOpenAiCosts(report)
      : format === 'anthropic_cost_report'
        ? parseAnthropicCostReport(report)
        : parseCostCsv(report);
  if (lines.length > MAX_LINES) throw new ValidationError('report', `at most ${MAX_LINES} cost lines per import`);
  return lines;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function arrayAt(v: unknown, key: string, field: string): unknown[] {
  const value = isObject(v) ? v[key] : undefined;
  if (!Array.isArray(value)) throw new ValidationError(`${field}.${key}`, 'must be an array');
  return value;
}

export function optionalText(v: unknown, field: string): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string' || v.length > 255) throw new ValidationError(field, 'must be a string of at most 255 characters or null');
  return v;
}

/** A JSON number by its shortest decimal form (the literal the provider wrote), or a decimal string. */
function decimal(v: unknown, field: string): Big {
  if (typeof v === 'number' && Number.isFinite(v)) return new Big(String(v));
  if (typeof v === 'string' && isDecimalString(v)) return new Big(v);
  throw new ValidationError(field, 'must be a decimal number');
}

function usd(v: unknown, field: string): void {
  if (typeof v !== 'string' || v.toLowerCase() !== 'usd') throw new ValidationError(field, 'must be USD (the currency of our costs)');
}

/** A bucket must be one whole UTC day: reports are compared per day. */
function wholeDay(startMs: number, endMs: number, field: string): string {
  if (!Number.isFinite(startMs) || startMs % (DAY_SECONDS * 1000) !== 0 || endMs - startMs !== DAY_SECONDS * 1000) {
    throw new ValidationError(field, 'must start a whole UTC day bucket (bucket_width 1d, end one day later)');
  }
  return new Date(startMs).toISOString().slice(0, 10);
}

/** One result of a report's daily bucket: its UTC day, the result object and its field path. */
export interface DailyResult {
  date: string;
  result: Record<string, unknown>;
  at: string;
}

/**
 * Every result of a report's whole-day buckets: OpenAI's (`start_time`/`end_time`, Unix seconds)
 * or Anthropic's (`starting_at`/`ending_at`, RFC 3339), the shapes of both providers' cost and usage APIs.
 */
export function dailyResults(report: unknown, times: 'unix_seconds' | 'rfc3339'): DailyResult[] {
  return arrayAt(report, 'data', 'report').flatMap((bucket, i) => {
    const at = `report.data[${i}]`;
    let date: string;
    if (times === 'unix_seconds') {
      if (!isObject(bucket) || !Number.isInteger(bucket.start_time) || !Number.isInteger(bucket.end_time)) {
        throw new ValidationError(`${at}.start_time`, 'start_time and end_time must be Unix seconds');
      }
      date = wholeDay((bucket.start_time as number) * 1000, (bucket.end_time as number) * 1000, `${at}.start_time`);
    } else {
      if (!isObject(bucket) || typeof bucket.starting_at !== 'string' || typeof bucket.ending_at !== 'string') {
        throw new ValidationError(`${at}.starting_at`, 'starting_at and ending_at must be RFC 3339 times');
      }
      date = wholeDay(Date.parse(bucket.starting_at), Date.parse(bucket.ending_at), `${at}.starting_at`);
    }
    return arrayAt(bucket, 'results', at).map((result, j) => {
      const r = `${at}.results[${j}]`;
      if (!isObject(result)) throw new ValidationError(r, 'must be an object');
      return { date, result, at: r };
    });
  });
}

/** OpenAI: `{ data: [{ start_time, end_time, results: [{ amount: { value, currency }, line_item, project_id }] }] }`. */
function parseOpenAiCosts(report: unknown): ProviderCostLine[] {
  return dailyResults(report, 'unix_seconds').map(({ date, result, at: r }) => {
    if (!isObject(result.amount)) throw new ValidationError(`${r}.amount`, 'must be an object with value and currency');
    usd(result.amount.currency, `${r}.amount.currency`);
    const lineItem = optionalText(result.line_item, `${r}.line_item`);
    return {
      date,
      provider: 'openai',
      model: lineItem === null ? ALL_MODELS : openAiLineItemModel(lineItem),
      project: optionalText(result.project_id, `${r}.project_id`) ?? '',
      amount: decimal(result.amount.value, `${r}.amount.value`),
    };
  });
}

/** Anthropic: `{ data: [{ starting_at, ending_at, results: [{ amount: "123.45" (cents), currency, model, cost_type, workspace_id }] }] }`. */
function parseAnthropicCostReport(report: unknown): ProviderCostLine[] {
  return dailyResults(report, 'rfc3339').map(({ date, result, at: r }) => {
    if (typeof result.amount !== 'string') throw new ValidationError(`${r}.amount`, 'must be a decimal string (cents)');
    usd(result.currency, `${r}.currency`);
    // Token costs name their model; web search and code execution costs have none.
    const model = optionalText(result.model, `${r}.model`) ?? optionalText(result.cost_type, `${r}.cost_type`);
    return {
      date,
      provider: 'anthropic',
      model: model === null ? ALL_MODELS : reconciliationModel(model),
      project: optionalText(result.workspace_id, `${r}.workspace_id`) ?? '',
      amount: decimal(result.amount, `${r}.amount`).div(100),
    };
  });
}

/** RFC 4180 fields: quoted fields may hold commas, doubled quotes and line breaks. */
function csvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (quoted) {
      if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      records.push([...record, field]);
      record = [];
      field = '';
    } else {
      field += c;
    }
  }
  if (field !== '' || record.length > 0) records.push([...record, field]);
  return records.filter((r) => !(r.length === 1 && r[0].trim() === ''));
}

/** YYYY-MM-DD naming a real day (not 2026-02-30). */
function isCalendarDate(date: string): boolean {
  const at = Date.parse(`${date}T00:00:00Z`);
  return DATE.test(date) && !Number.isNaN(at) && new Date(at).toISOString().slice(0, 10) === date;
}

/** CSV with a header naming date, provider, model, cost and optionally project (or key). */
function parseCostCsv(report: unknown): ProviderCostLine[] {
  if (typeof report !== 'string') throw new ValidationError('report', 'must be the CSV text');
  const [header, ...rows] = csvRecords(report);
  const columns = (header ?? []).map((h) => h.trim().toLowerCase());
  const index = (name: string) => columns.indexOf(name);
  for (const name of ['date', 'provider', 'model', 'cost']) {
    if (index(name) < 0) throw new ValidationError(`report.header.${name}`, 'the header must name date, provider, model and cost');
  }
  const projectAt = index('project') >= 0 ? index('project') : index('key');
  return rows.map((row, n) => {
    const at = `report.line[${n + 2}]`;
    const cell = (name: string) => (row[index(name)] ?? '').trim();
    const date = cell('date');
    if (!isCalendarDate(date)) throw new ValidationError(`${at}.date`, 'must be a date YYYY-MM-DD (UTC)');
    const provider = cell('provider').toLowerCase();
    const model = cell('model');
    if (provider === '' || provider.length > 100) throw new ValidationError(`${at}.provider`, 'must be 1 to 100 characters');
    if (model === '' || model.length > 255) throw new ValidationError(`${at}.model`, 'must be 1 to 255 characters');
    const project = projectAt < 0 ? '' : (row[projectAt] ?? '').trim();
    if (project.length > 255) throw new ValidationError(`${at}.project`, 'must be at most 255 characters');
    return { date, provider, model: reconciliationModel(model), project, amount: decimal(cell('cost'), `${at}.cost`) };
  });
}

/** Lines of the same day, provider, model and project summed (OpenAI's input and output items of one model). */
export function sumCostLines(lines: readonly ProviderCostLine[]): ProviderCostLine[] {
  const byKey = new Map<string, ProviderCostLine>();
  for (const line of lines) {
    const key = JSON.stringify([line.date, line.provider, line.model, line.project]);
    const seen = byKey.get(key);
    byKey.set(key, seen ? { ...seen, amount: seen.amount.plus(line.amount) } : line);
  }
  return [...byKey.values()];
}
