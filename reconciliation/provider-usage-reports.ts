// Reading a provider's usage report into token lines (UTC day, provider, model, project, tokens).
// Two shapes, as documented: OpenAI's `GET /v1/organization/usage/completions` (daily buckets of
// `organization.usage.completions.result`: input_tokens including input_cached_tokens,
// output_tokens, num_model_requests; model / project_id / api_key_id when grouped by them) and
// Anthropic's `GET /v1/organizations/usage_report/messages` (daily buckets: uncached_input_tokens,
// cache_creation.{ephemeral_5m,ephemeral_1h}_input_tokens, cache_read_input_tokens, output_tokens;
// model / workspace_id / api_key_id when grouped). Both become three disjoint classes, the ones our
// events carry: input not read from cache (cache writes included), cache reads, output. Pure.
import { ValidationError } from '../core/errors.js';
import { reconciliationModel } from './model-keys.js';
import { ALL_MODELS, dailyResults, optionalText } from './provider-reports.js';

export type UsageReportFormat = 'openai_usage_completions' | 'anthropic_usage_report';
export const USAGE_REPORT_FORMATS: readonly UsageReportFormat[] = ['openai_usage_completions', 'anthropic_usage_report'];

export interface TokenCounts {
  /** Input not read from cache (cache writes included). */
  input_tokens: number;
  /** Input read from cache. */
  cached_input_tokens: number;
  output_tokens: number;
}

export interface ProviderUsageLine extends TokenCounts {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  provider: string;
  /** Already through reconciliationModel; ALL_MODELS when the report is not grouped by model. */
  model: string;
  /** Project, workspace or key; '' when the report has none. */
  project: string;
}

const MAX_LINES = 100_000;

export function parseUsageReport(format: UsageReportFormat, report: unknown): ProviderUsageLine[] {
  const lines = format === 'openai_usage_completions' ? parseOpenAiUsage(report) : parseAnthropicUsage(report);
  if (lines.length > MAX_LINES) throw new ValidationError('report', `at most ${MAX_LINES} usage lines per import`);
  return lines;
}

/** A token count: a non-negative safe integer (absent counts as 0 only where `optional`). */
function tokens(v: unknown, field: string, optional = false): number {
  if (optional && (v === undefined || v === null)) return 0;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new ValidationError(field, 'must be a non-negative integer');
  return v;
}

/** The first of project, workspace or key the result is grouped by, else ''. */
function projectOf(result: Record<string, unknown>, at: string, keys: readonly string[]): string {
  for (const key of keys) {
    const value = optionalText(result[key], `${at}.${key}`);
    if (value !== null) return value;
  }
  return '';
}

function modelOf(result: Record<string, unknown>, at: string): string {
  const model = optionalText(result.model, `${at}.model`);
  return model === null ? ALL_MODELS : reconciliationModel(model);
}

/** OpenAI: `{ data: [{ start_time, end_time, results: [{ input_tokens, input_cached_tokens, output_tokens, model, project_id, api_key_id }] }] }`. */
function parseOpenAiUsage(report: unknown): ProviderUsageLine[] {
  return dailyResults(report, 'unix_seconds').map(({ date, result, at: r }) => {
    // input_tokens counts the cached ones too (OpenAI's Usage API reference).
    const input = tokens(result.input_tokens, `${r}.input_tokens`);
    const cached = tokens(result.input_cached_tokens, `${r}.input_cached_tokens`, true);
    if (cached > input) throw new ValidationError(`${r}.input_cached_tokens`, 'must not exceed input_tokens');
    return {
      date,
      provider: 'openai',
      model: modelOf(result, r),
      project: projectOf(result, r, ['project_id', 'api_key_id']),
      input_tokens: input - cached,
      cached_input_tokens: cached,
      output_tokens: tokens(result.output_tokens, `${r}.output_tokens`),
    };
  });
}

/** Anthropic: `{ data: [{ starting_at, ending_at, results: [{ uncached_input_tokens, cache_creation, cache_read_input_tokens, output_tokens, model, workspace_id, api_key_id }] }] }`. */
function parseAnthropicUsage(report: unknown): ProviderUsageLine[] {
  return dailyResults(report, 'rfc3339').map(({ date, result, at: r }) => {
    const creation = result.cache_creation ?? {};
    if (typeof creation !== 'object' || Array.isArray(creation)) throw new ValidationError(`${r}.cache_creation`, 'must be an object');
    const { ephemeral_5m_input_tokens: fiveMinutes, ephemeral_1h_input_tokens: oneHour } = creation as Record<string, unknown>;
    const writes =
      tokens(fiveMinutes, `${r}.cache_creation.ephemeral_5m_input_tokens`, true) +
      tokens(oneHour, `${r}.cache_creation.ephemeral_1h_input_tokens`, true);
    return {
      date,
      provider: 'anthropic',
      model: modelOf(result, r),
      project: projectOf(result, r, ['workspace_id', 'api_key_id']),
      input_tokens: tokens(result.uncached_input_tokens, `${r}.uncached_input_tokens`) + writes,
      cached_input_tokens: tokens(result.cache_read_input_tokens, `${r}.cache_read_input_tokens`, true),
      output_tokens: tokens(result.output_tokens, `${r}.output_tokens`),
    };
  });
}

/** Lines of the same day, provider, model and project summed (results split by tier or context window). */
export function sumUsageLines(lines: readonly ProviderUsageLine[]): ProviderUsageLine[] {
  const byKey = new Map<string, ProviderUsageLine>();
  for (const line of lines) {
    const key = JSON.stringify([line.date, line.provider, line.model, line.project]);
    const seen = byKey.get(key);
    byKey.set(key, seen ? { ...seen, ...addTokens(seen, line) } : line);
  }
  return [...byKey.values()];
}

export function addTokens(a: TokenCounts, b: TokenCounts): TokenCounts {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
  };
}
