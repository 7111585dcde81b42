// Types of request parameters that tsoa documents and checks the same way on every endpoint.

/**
 * An ISO 8601 date (UTC midnight) or date-time (UTC when it has no offset), e.g. `2026-01-15` or
 * `2026-01-15T10:30:00Z`: exactly what core/time.ts's parseDateParam reads, calendar included
 * (months of 30 days, February 29 in leap years only), so a value the pattern admits is never
 * refused as a date (a unit test compares the two).
 * @pattern ^(?:\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|02-(?:0[1-9]|1\d|2[0-8]))|(?:\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)(?:[Tt](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:[Zz]|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?$ must be an ISO 8601 date or datetime
 * @example "2026-01-15"
 */
export type IsoDateParam = string;

/**
 * A key given as a query parameter (a dimension or metadata key): not empty, and like every query
 * parameter without NUL characters (core/http/request-guards.ts refuses them).
 * @pattern ^[^\u0000]+$ must not be empty or contain NUL characters
 */
export type KeyParam = string;

/**
 * Free text given as a query parameter (an id or a value): without NUL characters
 * (core/http/request-guards.ts refuses them).
 * @pattern ^[^\u0000]*$ must not contain NUL characters
 */
export type TextParam = string;

/**
 * A UUID as core/ids.ts's isUuid reads it (the uuid package's rule: versions 1–8 with the RFC
 * variant, or the nil and max UUIDs), either case.
 * @pattern ^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12})$ must be a UUID
 * @example "0b0e8c7e-3f7a-4c53-9d2e-5a4c1e2b7f10"
 */
export type UuidParam = string;

/**
 * An end user's external id as events send it: 1–255 characters, without NUL.
 * @minLength 1 must be 1 to 255 characters
 * @maxLength 255 must be 1 to 255 characters
 * @pattern ^[^\u0000]*$ must not contain NUL characters
 */
export type ExternalIdParam = string;
