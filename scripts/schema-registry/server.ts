// The dev schema registry's HTTP mapping: the part of the Confluent Schema Registry REST API that
// @kafkajs/confluent-schema-registry calls (plus a few read endpoints for people), over node:http.
// Bodies and answers are JSON (application/vnd.schemaregistry.v1+json); errors are Confluent's
// {error_code, message}. The rules live in registry.ts, the file in registry-file.ts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RegistryError, SchemaRegistryModel, type RegisterRequest } from './registry.js';
import { readRegistryState, writeRegistryState } from './registry-file.js';

export interface SchemaRegistryOptions {
  host?: string;
  /** 0 picks any free port. */
  port: number;
  /** State file; read at start, replaced atomically on every change. */
  file: string;
}

export interface RunningSchemaRegistry {
  url: string;
  stop(): Promise<void>;
}

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';
const MAX_BODY_BYTES = 16 * 1024 * 1024;

type Body = Record<string, unknown>;
type Route = (model: SchemaRegistryModel, params: string[], body: Body, query: URLSearchParams) => unknown;

const notFound = () => new RegistryError(404, 404, 'HTTP 404 Not Found');

function schemaId(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new RegistryError(404, 40403, `Schema ${raw} not found`);
  return Number(raw);
}

// Raw schema endpoints answer the schema itself rather than a wrapper object.
const rawSchema = (text: string): unknown => JSON.parse(text);

// Each pattern is matched against the path's segments; `*` captures one (decoded) segment.
const ROUTES: [method: string, pattern: string, route: Route][] = [
  ['GET', '', () => ({})],
  ['GET', 'schemas/types', () => ['AVRO']],
  ['GET', 'schemas/ids/*', (m, [id]) => m.schemaById(schemaId(id!))],
  ['GET', 'schemas/ids/*/schema', (m, [id]) => rawSchema(m.schemaById(schemaId(id!)).schema)],
  ['GET', 'schemas/ids/*/versions', (m, [id]) => m.versionsOfSchema(schemaId(id!))],
  ['GET', 'subjects', (m) => m.subjects()],
  ['POST', 'subjects/*', (m, [s], body) => m.lookup(s!, body as RegisterRequest)],
  ['DELETE', 'subjects/*', (m, [s]) => m.deleteSubject(s!)],
  ['GET', 'subjects/*/versions', (m, [s]) => m.versions(s!)],
  ['POST', 'subjects/*/versions', (m, [s], body) => m.register(s!, body as RegisterRequest)],
  ['GET', 'subjects/*/versions/*', (m, [s, v]) => m.version(s!, v!)],
  ['GET', 'subjects/*/versions/*/schema', (m, [s, v]) => rawSchema(m.version(s!, v!).schema)],
  ['POST', 'compatibility/subjects/*/versions/*', (m, [s, v], body) => m.testCompatibility(s!, v!, body as RegisterRequest)],
  ['GET', 'config', (m) => m.globalConfig()],
  ['PUT', 'config', (m, _p, body) => m.setGlobalConfig(body)],
  ['GET', 'config/*', (m, [s], _b, q) => m.subjectConfig(s!, q.get('defaultToGlobal') === 'true')],
  ['PUT', 'config/*', (m, [s], body) => m.setSubjectConfig(s!, body)],
  ['DELETE', 'config/*', (m, [s]) => m.deleteSubjectConfig(s!)],
];

function match(pattern: string, segments: string[]): string[] | null {
  const parts = pattern === '' ? [] : pattern.split('/');
  if (parts.length !== segments.length) return null;
  const params: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '*') params.push(segments[i]!);
    else if (parts[i] !== segments[i]) return null;
  }
  return params;
}

async function readBody(req: http.IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new RegistryError(413, 413, 'Request body too large');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    const body: unknown = JSON.parse(text);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Error('expected a JSON object');
    return body as Body;
  } catch (e) {
    throw new RegistryError(400, 400, `Invalid JSON body: ${(e as Error).message}`);
  }
}

async function handle(model: SchemaRegistryModel, req: http.IncomingMessage): Promise<[number, unknown]> {
  const url = new URL(req.url ?? '/', 'http://registry');
  const segments = url.pathname
    .split('/')
    .filter((s) => s !== '')
    .map((s) => decodeURIComponent(s));
  let pathMatched = false;
  for (const [method, pattern, route] of ROUTES) {
    const params = match(pattern, segments);
    if (!params) continue;
    pathMatched = true;
    if (method !== req.method) continue;
    const body = method === 'POST' || method === 'PUT' ? await readBody(req) : {};
    return [200, route(model, params, body, url.searchParams)];
  }
  if (pathMatched) throw new RegistryError(405, 405, 'HTTP 405 Method Not Allowed');
  throw notFound();
}

export async function startSchemaRegistry(opts: SchemaRegistryOptions): Promise<RunningSchemaRegistry> {
  const model = new SchemaRegistryModel(readRegistryState(opts.file), (state) => writeRegistryState(opts.file, state));

  const server = http.createServer((req, res) => {
    handle(model, req)
      .catch((e: unknown): [number, unknown] => {
        if (e instanceof RegistryError) return [e.status, { error_code: e.errorCode, message: e.message }];
        if (e instanceof URIError) return [404, { error_code: 404, message: 'HTTP 404 Not Found' }];
        // Anything else is a fault here (for example the state file could not be written).
        return [500, { error_code: 50001, message: `Error in the backend data store: ${(e as Error).message}` }];
      })
      .then(([status, body]) => {
        const text = JSON.stringify(body);
        res.writeHead(status, { 'content-type': CONTENT_TYPE, 'content-length': Buffer.byteLength(text) });
        res.end(text);
      });
  });

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive connections from registry clients would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}
