// Which provider and model a cost belongs to when a provider's report is set against our events.
// Both sides pass through the same rule, so a dated name in a report ("gpt-4o-2024-08-06",
// "claude-sonnet-4-20250514") meets the undated slug our events carry ("gpt-4o"). Pure.

/** A trailing release date: -YYYY-MM-DD (OpenAI) or -YYYYMMDD (Anthropic). */
const DATE_SUFFIX = /-(\d{4}-\d{2}-\d{2}|\d{8})$/;

/** The model a cost is compared under: trimmed, lowercased, without a trailing release date. */
export function reconciliationModel(name: string): string {
  const lower = name.trim().toLowerCase();
  const undated = lower.replace(DATE_SUFFIX, '');
  return undated === '' ? lower : undated;
}

/**
 * An OpenAI costs line item ("gpt-4o-2024-08-06, input", "gpt-4o-mini, cached input") names its
 * model before the first comma; items that are not a model ("File search tool storage") stay as
 * they are and so are rows only the provider has.
 */
export function openAiLineItemModel(lineItem: string): string {
  const comma = lineItem.indexOf(',');
  return reconciliationModel(comma < 0 ? lineItem : lineItem.slice(0, comma));
}

const PROVIDER_PREFIXES: ReadonlyArray<[RegExp, string]> = [
  [/^(gpt-|chatgpt-|o\d|text-embedding-|dall-e|whisper|tts-|omni-moderation|codex|davinci|babbage)/, 'openai'],
  [/^claude/, 'anthropic'],
  [/^gemini/, 'google'],
  [/^(mistral|codestral|ministral|magistral|pixtral|devstral)/, 'mistral'],
  [/^deepseek/, 'deepseek'],
  [/^grok/, 'xai'],
];

/**
 * The provider of one of our cost rows: the event's own `provider` (lowercased) when it sent one,
 * else the provider whose model names start like this model's, else "unknown".
 */
export function providerOfModel(model: string | null, sentProvider: string | null): string {
  const sent = sentProvider?.trim().toLowerCase();
  if (sent) return sent;
  const name = model?.trim().toLowerCase() ?? '';
  for (const [prefix, provider] of PROVIDER_PREFIXES) if (prefix.test(name)) return provider;
  return 'unknown';
}
