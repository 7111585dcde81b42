// Types of request parameters that tsoa documents and checks the same way on every endpoint.

/**
 * An ISO 8601 date (UTC midnight) or date-time (UTC when it has no offset), e.g. `2026-01-15` or
 * `2026-01-15T10:30:00Z`: the syntax core/time.ts's parseIsoDate reads (which also checks the
 * calendar).
 * @pattern ^\d{4}-\d{2}-\d{2}([Tt]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?)?$ must be an ISO 8601 date or datetime
 * @example "2026-01-15"
 */
export type IsoDateParam = string;
