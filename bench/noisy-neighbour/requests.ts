// Requests of the noisy-neighbour bench: a valid signed single event, every bad input of issue 16
// (named, so the bench can also measure what each costs the service), and one keep-alive sender
// that labels a batch's 200 by its first event's error code.
import http from 'node:http';
import zlib from 'node:zlib';
import { signedIngestHeaders } from '../signed-ingest-headers.js';

export interface Signer {
  apiKey: string;
  signingSecret: string;
}

export interface Req {
  method: string;
  path: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
}

export const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/**
 * The answer's status; a batch answers 200 with one result per event, so its label is the
 * status of its first event's error code ("200:VALIDATION_ERROR") when it has one.
 */
export function send(base: URL, r: Req): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: base.hostname, port: base.port, method: r.method, path: r.path, headers: r.headers, agent }, (res) => {
      const batch = r.path.endsWith('/batch') && res.statusCode === 200;
      let body = '';
      if (batch) res.on('data', (d: Buffer) => (body += d.toString()));
      else res.resume();
      res.on('end', () => {
        const code = batch ? (JSON.parse(body) as { results: Array<{ error?: { code: string } }> }).results[0]?.error?.code : undefined;
        resolve(code ? `${res.statusCode}:${code}` : String(res.statusCode ?? 0));
      });
    });
    req.on('error', reject);
    if (r.body !== undefined) req.write(r.body);
    req.end();
  });
}

export function signed(cfg: Signer, path: string, body: string, extra: Record<string, string> = {}): Req {
  return { method: 'POST', path, headers: { ...signedIngestHeaders(cfg.apiKey, cfg.signingSecret, body), ...extra }, body };
}

export const llm = (key: string, fields: Record<string, unknown> = {}) => ({
  idempotency_key: key,
  model: 'gpt-4o',
  input_tokens: 120,
  output_tokens: 30,
  ...fields,
});

/** Every bad input of issue 16 by name, built fresh each round (signatures carry the time). */
export function namedBadInputs(cfg: Signer, round: number | string): Array<[string, Req]> {
  const k = String(round);
  const raw = (body: string) => signed(cfg, '/v1/usage-events', body);
  const get = (path: string): Req => ({ method: 'GET', path, headers: { authorization: `Bearer ${cfg.apiKey}` } });
  const range = 'start_date=2026-01-01&end_date=2026-01-31';
  const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
  const notGzip = JSON.stringify(llm(`gz-${k}`));
  return [
    ['timestamp year 0', raw(JSON.stringify(llm(`y0-${k}`, { timestamp: '0000-01-01T00:00:00Z' })))],
    ['timestamp year 1 +01:00', raw(JSON.stringify(llm(`y1-${k}`, { timestamp: '0001-01-01T00:00:00+01:00' })))],
    ['started_at year 0', raw(JSON.stringify(llm(`s0-${k}`, { started_at: '0000-01-01T00:00:00Z' })))],
    ['lone surrogate in idempotency_key', raw(`{"idempotency_key":"k\\udfff${k}","model":"gpt-4o","input_tokens":1,"output_tokens":1}`)],
    ['lone surrogate in model', raw(`{"idempotency_key":"m-${k}","model":"gpt\\ud800","input_tokens":1,"output_tokens":1}`)],
    [
      'lone surrogates in metric, unit, provider',
      raw(`{"idempotency_key":"p-${k}","metric":"tts\\udc00","unit":"char\\ud800","quantity":1,"provider":"acme\\udfff"}`),
    ],
    ['metadata 5,000 deep', raw(`{"idempotency_key":"d-${k}","model":"gpt-4o","input_tokens":1,"output_tokens":1,"metadata":${deep}}`)],
    ['input_tokens 2^53-1', raw(JSON.stringify(llm(`t-${k}`, { input_tokens: 2 ** 53 - 1 })))],
    [
      'batch with a lone surrogate',
      signed(
        cfg,
        '/v1/usage-events/batch',
        `{"events":[{"idempotency_key":"b\\udfff${k}","model":"gpt-4o","input_tokens":1,"output_tokens":1}]}`,
      ),
    ],
    [
      'not gzip, sent as gzip, with a key',
      {
        method: 'POST',
        path: '/v1/usage-events',
        headers: { authorization: `Bearer ${cfg.apiKey}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: notGzip,
      },
    ],
    [
      'gzip without a key',
      {
        method: 'POST',
        path: '/v1/usage-events',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: zlib.gzipSync(notGzip),
      },
    ],
    ['NUL in dimension_key', get(`/v1/dimension-data/cost-trend?${range}&dimension_key=%00`)],
    ['NUL in externalId', get(`/v1/end-user-costs/%00/summary?${range}`)],
    ['malformed percent-encoding in sessionId', get('/v1/attribution-data/sessions/%E0%A4%A/tree')],
    ['"%" as sessionId', get('/v1/attribution-data/sessions/%25/tree')],
    ['offset past int64', get(`/v1/attribution-data/sessions?${range}&offset=9223372036854775808`)],
    ['offset=1e26', get(`/v1/usage/events?${range}&offset=1e26`)],
  ];
}

/** A valid signed single event of `cfg`'s organization. */
export function validEvent(cfg: Signer, key: string): Req {
  return signed(cfg, '/v1/usage-events', JSON.stringify(llm(key)));
}
