// The one rule for a person's email: trimmed, lowercased, one @ with a dotted domain, at most 254
// characters. Pure; throws ValidationError naming the field.
import { ValidationError } from '../core/errors.js';

const SHAPE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export function normalizeEmail(field: string, value: string): string {
  const email = value.trim().toLowerCase();
  if (email.length > 254) throw new ValidationError(field, 'must be at most 254 characters');
  if (!SHAPE.test(email)) throw new ValidationError(field, 'must be an email address such as ana@example.com');
  return email;
}
