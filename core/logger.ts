// JSON-line logs (pino) for every service; child loggers carry request/correlation ids.
// Secrets never reach a log line: the fields below are redacted wherever a caller puts them (at
// the top of a record or one level down, e.g. `config.masterKey`, `headers.authorization`).
import pino from 'pino';

export type Logger = pino.Logger;

const SECRET_FIELDS = [
  'authorization',
  'adminToken',
  'masterKey',
  'apiKey',
  'api_key',
  'signingSecret',
  'signing_secret',
  'secretKey',
  'secret_key',
  'databaseUrl',
  'password',
];

const REDACTED_PATHS = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  'headers.authorization',
  '*.headers.authorization',
  'headers["x-signature"]',
  '*.headers["x-signature"]',
];

export function createLogger(level = process.env.LOG_LEVEL ?? 'info', name = 'marginal'): Logger {
  return pino({ name, level, base: { pid: process.pid }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}
