// Which control-plane failures are an outage (503) rather than a bug (500).
import { describe, expect, it } from 'vitest';
import { isConnectionFailure } from '../../../../core/control/sql-errors.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isConnectionFailure', () => {
  it('recognizes refused, reset and timed-out connections, also inside AggregateError and cause', () => {
    expect(isConnectionFailure(withCode('ECONNREFUSED'))).toBe(true);
    expect(isConnectionFailure(withCode('ECONNRESET'))).toBe(true);
    expect(isConnectionFailure(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'connect'))).toBe(true);
    expect(isConnectionFailure(new Error('wrapped', { cause: withCode('ETIMEDOUT') }))).toBe(true);
  });

  it('recognizes a server shutting down or refusing connections, and pg connection messages', () => {
    expect(isConnectionFailure(withCode('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isConnectionFailure(withCode('57P03', 'the database system is starting up'))).toBe(true);
    expect(isConnectionFailure(withCode('08006'))).toBe(true);
    expect(isConnectionFailure(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionFailure(new Error('timeout exceeded when trying to connect'))).toBe(true);
  });

  it('leaves query errors and anything else alone', () => {
    expect(isConnectionFailure(withCode('23505', 'duplicate key value'))).toBe(false);
    expect(isConnectionFailure(withCode('42P01', 'relation does not exist'))).toBe(false);
    expect(isConnectionFailure(new TypeError('x is undefined'))).toBe(false);
    expect(isConnectionFailure(null)).toBe(false);
    expect(isConnectionFailure('ECONNREFUSED')).toBe(false);
  });
});
