// Passwords: argon2id (@node-rs/argon2, OWASP's parameters: 19 MiB, 2 passes, 1 lane) and the
// one rule a new password must meet. Only the hash is stored; the PHC string carries its own
// parameters, so stronger settings later still verify old hashes.
import { Algorithm, hash, verify } from '@node-rs/argon2';
import { ValidationError } from '../core/errors.js';

const MIN_LENGTH = 12;
const MAX_LENGTH = 256;

/** 12–256 characters, not blank: length is what NIST SP 800-63B asks for, no composition rules. */
export function checkNewPassword(field: string, password: string): string {
  if (password.length < MIN_LENGTH) throw new ValidationError(field, `must be at least ${MIN_LENGTH} characters`);
  if (password.length > MAX_LENGTH) throw new ValidationError(field, `must be at most ${MAX_LENGTH} characters`);
  if (password.trim() === '') throw new ValidationError(field, 'must not be blank');
  return password;
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 });
}

export async function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** Verified against when the email is unknown, so an unknown account costs the same time as a known one. */
export const UNKNOWN_ACCOUNT_HASH = '$argon2id$v=19$m=19456,t=2,p=1$qMQmRiXKuh5IYC1wYoEr4w$BONAEWMK5MMuoqF7lAs9pZ9oxSmX7XSRcikJrwLyp7A';
