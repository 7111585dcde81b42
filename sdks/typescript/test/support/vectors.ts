// The shared test vectors of sdks/test-vectors (format: its README.md), loaded for the tests.
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './service.js';

export interface SigningVector {
  name: string;
  secret: string;
  timestamp: string;
  body: string;
  body_utf8_hex: string;
  signature: string;
}

export interface SseItem {
  event?: string;
  data: unknown;
}

export interface ProviderVector {
  name: string;
  provider: 'openai' | 'anthropic';
  api: 'chat.completions' | 'responses' | 'messages';
  stream: boolean;
  request: Record<string, unknown>;
  response?: Record<string, unknown>;
  sse?: SseItem[];
  expected_event: Record<string, unknown> & { model: string; input_tokens: number; output_tokens: number };
}

function load<T>(file: string): T[] {
  return (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'sdks/test-vectors', file), 'utf8')) as { vectors: T[] }).vectors;
}

export const signingVectors = load<SigningVector>('signing.json');
export const providerVectors = load<ProviderVector>('providers.json');
