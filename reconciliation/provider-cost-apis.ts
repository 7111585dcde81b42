// The providers' cost and usage APIs as their documentation has them, page by page, for whole UTC
// days [start, end): OpenAI's `GET /v1/organization/costs` (Bearer admin key; daily buckets grouped
// by line item and project) and `GET /v1/organization/usage/completions` (the same parameters,
// grouped by model and project); Anthropic's `GET /v1/organizations/cost_report` (`x-api-key` admin
// key, `anthropic-version`; grouped by description and workspace) and
// `GET /v1/organizations/usage_report/messages` (bucket_width 1d, grouped by model and workspace).
// All page with `has_more` / `next_page` (sent back as `page`). Each answers one report in the
// shape the upload accepts (all pages' buckets in `data`), so polled and uploaded reports go
// through the same parser. Every request is bounded.
import { DAY_MS } from '../core/time.js';

export type PolledProvider = 'openai' | 'anthropic';

export const PROVIDER_API_URLS: Record<PolledProvider, string> = {
  openai: 'https://api.openai.com',
  anthropic: 'https://api.anthropic.com',
};

const REQUEST_TIMEOUT_MS = 30_000;
/** More pages than a year of daily buckets needs: a provider that never ends its pages is cut off. */
const MAX_PAGES = 100;

/** The provider refused or failed: its status and a short reason (never the key). */
class ProviderApiError extends Error {
  constructor(
    readonly status: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderApiError';
  }
}

interface Page {
  data?: unknown[];
  has_more?: boolean;
  next_page?: string | null;
}

async function pagesOf(first: URL, headers: Record<string, string>): Promise<unknown[]> {
  const data: unknown[] = [];
  let url: URL | null = first;
  for (let n = 0; url && n < MAX_PAGES; n++) {
    const res: Response = await fetch(url, { headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).catch((err: unknown) => {
      throw new ProviderApiError(null, `${url!.origin} could not be reached: ${(err as Error).message}`);
    });
    const text = await res.text();
    if (!res.ok) throw new ProviderApiError(res.status, `${url.origin} answered HTTP ${res.status}: ${text.slice(0, 200)}`);
    const page = JSON.parse(text) as Page;
    data.push(...(page.data ?? []));
    if (!page.has_more || !page.next_page) return data;
    url = new URL(first);
    url.searchParams.set('page', page.next_page);
  }
  if (url) throw new ProviderApiError(null, `${first.origin} had more than ${MAX_PAGES} pages`);
  return data;
}

export type PolledReport = 'costs' | 'usage';

/** The provider's request for whole UTC days [start, end) of one report, and its headers. */
function reportRequest(
  provider: PolledProvider,
  report: PolledReport,
  apiUrl: string,
  adminKey: string,
  range: { start: Date; end: Date },
): { url: URL; headers: Record<string, string> } {
  const days = String(Math.round((range.end.getTime() - range.start.getTime()) / DAY_MS));
  if (provider === 'openai') {
    const url = new URL(report === 'costs' ? '/v1/organization/costs' : '/v1/organization/usage/completions', apiUrl);
    url.searchParams.set('start_time', String(range.start.getTime() / 1000));
    url.searchParams.set('end_time', String(range.end.getTime() / 1000));
    url.searchParams.set('bucket_width', '1d');
    for (const group of report === 'costs' ? ['line_item', 'project_id'] : ['model', 'project_id'])
      url.searchParams.append('group_by', group);
    url.searchParams.set('limit', days);
    return { url, headers: { authorization: `Bearer ${adminKey}` } };
  }
  const url = new URL(report === 'costs' ? '/v1/organizations/cost_report' : '/v1/organizations/usage_report/messages', apiUrl);
  url.searchParams.set('starting_at', range.start.toISOString());
  url.searchParams.set('ending_at', range.end.toISOString());
  // The cost report has daily buckets only; the usage report's default width is 1d too, named for clarity.
  if (report === 'usage') url.searchParams.set('bucket_width', '1d');
  for (const group of report === 'costs' ? ['description', 'workspace_id'] : ['model', 'workspace_id'])
    url.searchParams.append('group_by[]', group);
  url.searchParams.set('limit', days);
  return { url, headers: { 'x-api-key': adminKey, 'anthropic-version': '2023-06-01' } };
}

/** Whole UTC days [start, end) of one provider's costs or usage, as an uploadable report. */
export async function fetchProviderReport(
  provider: PolledProvider,
  report: PolledReport,
  apiUrl: string,
  adminKey: string,
  range: { start: Date; end: Date },
): Promise<unknown> {
  const { url, headers } = reportRequest(provider, report, apiUrl, adminKey, range);
  return { data: await pagesOf(url, headers), has_more: false, next_page: null };
}
