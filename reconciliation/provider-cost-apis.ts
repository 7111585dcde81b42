// The providers' cost APIs as their documentation has them, page by page, for whole UTC days
// [start, end): OpenAI's `GET /v1/organization/costs` (Bearer admin key; daily buckets grouped by
// line item and project; `has_more` / `next_page`) and Anthropic's `GET /v1/organizations/cost_report`
// (`x-api-key` admin key, `anthropic-version`; grouped by description and workspace; `has_more` /
// `next_page`). Each answers one report in the shape the upload accepts (all pages' buckets in
// `data`), so polled and uploaded reports go through the same parser. Every request is bounded.
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

/** Whole UTC days [start, end) of one provider's costs, as an uploadable report. */
export async function fetchProviderCosts(
  provider: PolledProvider,
  apiUrl: string,
  adminKey: string,
  range: { start: Date; end: Date },
): Promise<unknown> {
  const days = Math.round((range.end.getTime() - range.start.getTime()) / DAY_MS);
  if (provider === 'openai') {
    const url = new URL('/v1/organization/costs', apiUrl);
    url.searchParams.set('start_time', String(range.start.getTime() / 1000));
    url.searchParams.set('end_time', String(range.end.getTime() / 1000));
    url.searchParams.set('bucket_width', '1d');
    url.searchParams.append('group_by', 'line_item');
    url.searchParams.append('group_by', 'project_id');
    url.searchParams.set('limit', String(days));
    return { object: 'page', data: await pagesOf(url, { authorization: `Bearer ${adminKey}` }), has_more: false, next_page: null };
  }
  const url = new URL('/v1/organizations/cost_report', apiUrl);
  url.searchParams.set('starting_at', range.start.toISOString());
  url.searchParams.set('ending_at', range.end.toISOString());
  url.searchParams.append('group_by[]', 'description');
  url.searchParams.append('group_by[]', 'workspace_id');
  url.searchParams.set('limit', String(days));
  const headers = { 'x-api-key': adminKey, 'anthropic-version': '2023-06-01' };
  return { data: await pagesOf(url, headers), has_more: false, next_page: null };
}
