// People's typed errors; core/http/error-handler.ts maps every AppError to the spec's envelope.
import { AppError } from '../core/errors.js';

/** 401 for a wrong email or password: the same answer whether or not the account exists. */
export class SignInFailedError extends AppError {
  constructor() {
    super(401, 'SIGN_IN_FAILED', 'Wrong email or password', { field: 'password' });
  }
}

/** 429 while the account or the address is locked after repeated failures (people/lockout.ts). */
export class SignInLockedError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(
      429,
      'SIGN_IN_LOCKED',
      `Too many failed sign-ins; try again in ${retryAfterSeconds} s`,
      { field: 'email', retryable: true, retryAfterSeconds },
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }
}

/** 429 past the password-reset limits (per email and per address); the same whether or not the email has an account. */
export class PasswordResetLimitedError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(
      429,
      'RATE_LIMIT_EXCEEDED',
      `Too many password reset requests; try again in ${retryAfterSeconds} s`,
      { field: 'email', retryable: true, retryAfterSeconds },
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }
}
