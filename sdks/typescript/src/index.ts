// @marginal/sdk: the public surface.
export { Marginal } from './client.js';
export { DEFAULT_BASE_URL, type MarginalOptions, type RetryOptions } from './config.js';
export type { EventResult, IngestResponse, UsageEvent } from './events.js';
export {
  AuthenticationError,
  DateRangeTooLargeError,
  InsufficientCreditsError,
  MarginalApiError,
  MarginalConfigError,
  MarginalConnectionError,
  MarginalError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  ValidationError,
} from './errors.js';
export { READ_ENDPOINTS, type ReadMethods, type ReadParams, type ReadResult, type WhatIfResult, type WhatIfScenario } from './reads.js';
export { sign, signatureHeaders } from './signing.js';
export { currentContext, withContext, type CaptureContext } from './context.js';
export {
  fromAnthropicMessage,
  fromOpenAIChatCompletion,
  fromOpenAIResponse,
  type ProviderUsage,
} from './providers/usage-mapping.js';
export { wrapOpenAI } from './providers/openai.js';
export { wrapAnthropic } from './providers/anthropic.js';
export type { WrapOptions } from './providers/capture.js';
export type { components as ApiSchemas, paths as ApiPaths } from './generated/openapi.js';
