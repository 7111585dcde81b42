import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { MarginalConfigError } from '../../src/errors.js';

describe('resolveConfig', () => {
  it('reads MARGINAL_* when options are absent; options win', () => {
    const env = { MARGINAL_API_KEY: 'mk_env', MARGINAL_SIGNING_SECRET: 'mks_env', MARGINAL_BASE_URL: 'https://m.example.com/' };
    const fromEnv = resolveConfig({}, env);
    expect([fromEnv.apiKey, fromEnv.signingSecret, fromEnv.baseUrl, fromEnv.apiUrl]).toEqual([
      'mk_env',
      'mks_env',
      'https://m.example.com',
      'https://m.example.com/v1',
    ]);
    const fromOptions = resolveConfig({ apiKey: 'mk_opt', signingSecret: 'mks_opt', baseUrl: 'http://127.0.0.1:9000' }, env);
    expect([fromOptions.apiKey, fromOptions.signingSecret, fromOptions.apiUrl]).toEqual(['mk_opt', 'mks_opt', 'http://127.0.0.1:9000/v1']);
  });

  it('defaults: local origin, batches of 500 every second, a 10,000-event queue', () => {
    const c = resolveConfig({ apiKey: 'k' }, {});
    expect([c.apiUrl, c.batchSize, c.flushIntervalMs, c.maxQueueSize, c.signingSecret]).toEqual([
      'http://127.0.0.1:8080/v1',
      500,
      1000,
      10_000,
      null,
    ]);
  });

  it('the base URL is the origin: a trailing /v1 is tolerated, a path prefix kept', () => {
    expect(resolveConfig({ apiKey: 'k', baseUrl: 'https://x.io/v1/' }, {}).apiUrl).toBe('https://x.io/v1');
    expect(resolveConfig({ apiKey: 'k', baseUrl: 'https://x.io/marginal' }, {}).apiUrl).toBe('https://x.io/marginal/v1');
  });

  it('refuses a missing key, a bad URL and impossible sizes', () => {
    expect(() => resolveConfig({}, {})).toThrow(MarginalConfigError);
    expect(() => resolveConfig({ apiKey: 'k', baseUrl: 'not a url' }, {})).toThrow(/baseUrl/);
    expect(() => resolveConfig({ apiKey: 'k', batchSize: 1001 }, {})).toThrow(/1000/);
    expect(() => resolveConfig({ apiKey: 'k', maxQueueSize: 0 }, {})).toThrow(/maxQueueSize/);
  });
});
