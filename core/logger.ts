// JSON-line logs (pino) for every service; child loggers carry request/correlation ids.
import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(level = process.env.LOG_LEVEL ?? 'info', name = 'marginal'): Logger {
  return pino({ name, level, base: { pid: process.pid } });
}
