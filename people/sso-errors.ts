// Single sign-on's typed errors; core/http/error-handler.ts maps every AppError to the spec's envelope.
import { AppError } from '../core/errors.js';

/** Seconds a client waits before trying a provider that did not answer again. */
export const PROVIDER_RETRY_SECONDS = 5;

/** 400 for a sign-in the callback refuses: state, code, ID token or email; `field` names which. */
export class SsoRefusedError extends AppError {
  constructor(field: string, message: string) {
    super(400, 'SSO_REFUSED', message, { field });
  }
}

/** 503 when the organization's provider does not answer in time (or answers 5xx). */
export class SsoProviderUnavailableError extends AppError {
  constructor(step: string) {
    super(
      503,
      'SSO_PROVIDER_UNAVAILABLE',
      `The organization's OpenID provider did not answer (${step}); try again in ${PROVIDER_RETRY_SECONDS} s`,
      { field: 'issuer', retryable: true, retryAfterSeconds: PROVIDER_RETRY_SECONDS },
      { 'Retry-After': String(PROVIDER_RETRY_SECONDS) },
    );
  }
}
