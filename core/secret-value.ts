// A credential read from the environment, kept so that printing it cannot leak it: logs (pino
// serializes with JSON), util.inspect, template strings and error messages all see "[redacted]";
// only reveal() gives the value, at the one place that hands it to the system that needs it.
import { inspect } from 'node:util';

const REDACTED = '[redacted]';

export class SecretValue {
  readonly #value: string;

  constructor(value: string) {
    if (value === '') throw new Error('a secret value cannot be empty');
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  /** `text` with every occurrence of the value replaced (for messages of systems that echo what they were given). */
  redactFrom(text: string): string {
    return text.replaceAll(this.#value, REDACTED);
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
