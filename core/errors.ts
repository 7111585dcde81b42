// Errors are values with a code. Code throws these; one middleware (core/http/error-handler.ts)
// maps them to the spec's envelope. Signature faults are the one flat-body exception.

export interface ErrorDetails {
  retryable?: boolean;
  userMessage?: string;
  supportMessage?: string;
  actionHint?: string;
  field?: string;
  [key: string]: unknown;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetails,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400. `field` names the failing field or parameter (dotted path for nested body fields). */
export class ValidationError extends AppError {
  constructor(
    readonly field: string,
    message: string,
    extra: ErrorDetails = {},
  ) {
    super(400, 'VALIDATION_ERROR', `${field}: ${message}`, { field, ...extra });
  }
}

export class UnauthorizedError extends AppError {
  /** `field` names the credential that is missing or wrong when it is not the Authorization header. */
  constructor(message = 'Missing or invalid API key', field?: string) {
    super(401, 'UNAUTHORIZED', message, field === undefined ? undefined : { field });
  }
}

export class ForbiddenError extends AppError {
  constructor(scope: string, caller = 'API key') {
    super(403, 'FORBIDDEN', `${caller} lacks the required scope ${scope}`, { requiredScope: scope });
  }
}

/** 403 for a reason other than a missing scope (CSRF token, membership, role rules); `field` names what decided it. */
export class AccessDeniedError extends AppError {
  constructor(field: string, message: string, code = 'FORBIDDEN') {
    super(403, code, message, { field });
  }
}

export class NotFoundError extends AppError {
  constructor(resource: string, id?: string) {
    super(404, 'NOT_FOUND', id === undefined ? `${resource} not found` : `${resource} ${id} not found`, {
      resource,
    });
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, 'CONFLICT', message);
  }
}

export class InsufficientCreditsError extends AppError {
  constructor() {
    super(402, 'INSUFFICIENT_CREDITS', 'Event credit balance is zero; the event was not queued', {
      actionHint: 'BUY_CREDITS',
      retryable: false,
      userMessage: 'Buy event credits, then retry with the same idempotency_key.',
    });
  }
}

export class SubscriptionInactiveError extends AppError {
  constructor() {
    super(402, 'SUBSCRIPTION_INACTIVE', 'The organization has no active subscription; the event was not queued', {
      actionHint: 'BUY_CREDITS',
      retryable: false,
    });
  }
}

export class DateRangeTooLargeError extends AppError {
  constructor(field: string, limit: string) {
    super(422, 'DATE_RANGE_TOO_LARGE', `${field}: the date range may not exceed ${limit}`, { field });
  }
}

export class RateLimitError extends AppError {
  constructor(retryAfterSeconds: number, headers: Record<string, string>) {
    super(
      429,
      'RATE_LIMIT_EXCEEDED',
      'Rate limit exceeded',
      { retryable: true, retryAfterSeconds },
      {
        ...headers,
        'Retry-After': String(retryAfterSeconds),
      },
    );
  }
}

/** Seconds a client is asked to wait before retrying after a 503 (a dependency outage). */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/** 503: a dependency (Kafka, the control plane) cannot serve now; always retryable, with Retry-After. */
export class ServiceUnavailableError extends AppError {
  constructor(message: string, supportMessage?: string) {
    super(
      503,
      'SERVICE_UNAVAILABLE',
      message,
      { retryable: true, retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS, supportMessage },
      { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
    );
  }
}

export type SignatureFault = 'SIGNATURE_MISSING' | 'SIGNATURE_INVALID' | 'TIMESTAMP_OUT_OF_RANGE';

/** 401 with the flat `{error, code}` body the spec prescribes for HMAC failures. */
export class SignatureError extends Error {
  readonly status = 401;
  constructor(
    readonly code: SignatureFault,
    message: string,
  ) {
    super(message);
    this.name = 'SignatureError';
  }
}
