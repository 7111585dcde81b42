// Headers of a signed POST /v1/usage-events as a client sends them, for the load generators.
import { signPayload } from '../ingest/signature.js';

export function signedIngestHeaders(apiKey: string, signingSecret: string, body: string): Record<string, string | number> {
  const ts = String(Math.floor(Date.now() / 1000));
  return {
    authorization: `Bearer ${apiKey}`,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-timestamp': ts,
    'x-signature': signPayload(signingSecret, ts, body),
  };
}
