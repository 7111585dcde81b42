// Typed errors of the SDK. Every answer the API refuses becomes a MarginalApiError (or a subclass
// chosen by status and code) carrying the envelope's code, correlationId and details; transport
// faults that outlived their retries are MarginalConnectionError. Built in one place: apiErrorOf.

/** Base class of everything the SDK throws or reports. */
export class MarginalError extends Error {
  override name = 'MarginalError';
}

/** Options or environment that cannot make a working client. */
export class MarginalConfigError extends MarginalError {
  override name = 'MarginalConfigError';
}

export interface ApiErrorInit {
  status: number;
  code: string;
  message: string;
  correlationId?: string | null;
  details?: Record<string, unknown>;
}

/** An error answer of the API: the spec's error envelope (or the flat signature body). */
export class MarginalApiError extends MarginalError {
  override name = 'MarginalApiError';
  /** HTTP status; 0 for a per-event error inside a batch answer (the request itself succeeded). */
  readonly status: number;
  /** Machine-readable code (`VALIDATION_ERROR`, `INSUFFICIENT_CREDITS`, …): branch on this. */
  readonly code: string;
  /** `error.correlationId` (or the X-Correlation-ID header); null when the answer carried none. */
  readonly correlationId: string | null;
  /** `error.details`: `field`, `retryable`, `actionHint`, `userMessage`, … */
  readonly details: Record<string, unknown>;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.correlationId = init.correlationId ?? null;
    this.details = init.details ?? {};
  }

  /** The request field a validation error names, when it names one. */
  get field(): string | undefined {
    return typeof this.details.field === 'string' ? this.details.field : undefined;
  }

  /** Whether the same request may succeed later (the service's `details.retryable`, or by status). */
  get retryable(): boolean {
    if (typeof this.details.retryable === 'boolean') return this.details.retryable;
    return this.status === 429 || this.status >= 500;
  }
}

/** 400: a parameter or event field is invalid; `field` names it. */
export class ValidationError extends MarginalApiError {
  override name = 'ValidationError';
}
/** 401: missing or invalid API key, or (on ingestion) a bad signature or timestamp. */
export class AuthenticationError extends MarginalApiError {
  override name = 'AuthenticationError';
}
/** 403: the key lacks the endpoint's scope. */
export class PermissionDeniedError extends MarginalApiError {
  override name = 'PermissionDeniedError';
}
/** 404: unknown end user, session, dimension or subscription. */
export class NotFoundError extends MarginalApiError {
  override name = 'NotFoundError';
}
/** 422: a date range longer than the endpoint allows. */
export class DateRangeTooLargeError extends MarginalApiError {
  override name = 'DateRangeTooLargeError';
}
/** 429: rate limit; `retryAfterSeconds` from the Retry-After header. */
export class RateLimitError extends MarginalApiError {
  override name = 'RateLimitError';
  retryAfterSeconds: number | null = null;
}
/** 5xx: the service could not answer; retried before it reaches you. */
export class ServerError extends MarginalApiError {
  override name = 'ServerError';
}

/** 402 on ingestion: no event credits left, or the subscription is inactive. Nothing was queued. */
export class InsufficientCreditsError extends MarginalApiError {
  override name = 'InsufficientCreditsError';
  /** What to do about it: `BUY_CREDITS`. */
  get actionHint(): string | undefined {
    return typeof this.details.actionHint === 'string' ? this.details.actionHint : undefined;
  }
}

/** The request never got an answer (connection refused or reset, timeout) after every retry. */
export class MarginalConnectionError extends MarginalError {
  override name = 'MarginalConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

const CREDIT_CODES = new Set(['INSUFFICIENT_CREDITS', 'SUBSCRIPTION_INACTIVE']);

/** The typed error for an API error: by code first (402 codes also arrive per event in a batch), then status. */
export function apiErrorOf(init: ApiErrorInit): MarginalApiError {
  if (init.status === 402 || CREDIT_CODES.has(init.code)) return new InsufficientCreditsError(init);
  switch (init.status) {
    case 400:
      return new ValidationError(init);
    case 401:
      return new AuthenticationError(init);
    case 403:
      return new PermissionDeniedError(init);
    case 404:
      return new NotFoundError(init);
    case 422:
      return new DateRangeTooLargeError(init);
    case 429:
      return new RateLimitError(init);
  }
  if (init.status >= 500) return new ServerError(init);
  if (init.status === 0 && init.code === 'VALIDATION_ERROR') return new ValidationError(init);
  return new MarginalApiError(init);
}

/**
 * The typed error for a non-2xx response body: the envelope `{success, error: {code, message,
 * correlationId, details}}`, the flat signature body `{error, code}`, or anything else.
 */
export function errorFromResponse(status: number, body: unknown, headers: Headers): MarginalApiError {
  const headerId = headers.get('x-correlation-id');
  let init: ApiErrorInit = { status, code: `HTTP_${status}`, message: `HTTP ${status}`, correlationId: headerId };
  if (isRecord(body) && isRecord(body.error)) {
    const e = body.error;
    init = {
      status,
      code: typeof e.code === 'string' ? e.code : init.code,
      message: typeof e.message === 'string' ? e.message : init.message,
      correlationId: typeof e.correlationId === 'string' ? e.correlationId : headerId,
      details: isRecord(e.details) ? e.details : undefined,
    };
  } else if (isRecord(body) && typeof body.code === 'string') {
    init = { status, code: body.code, message: typeof body.error === 'string' ? body.error : body.code, correlationId: headerId };
  }
  const err = apiErrorOf(init);
  if (err instanceof RateLimitError) err.retryAfterSeconds = retryAfterSeconds(headers.get('retry-after'));
  return err;
}

/** Retry-After as seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, (at - now) / 1000);
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
