// `npm run cli -- <resource> <action> [--flags]`: the admin CLI. Each command is one admin API
// call (scripts/cli/commands.ts); the JSON response goes to stdout, an error's JSON to stderr
// with exit code 1 (2 for a bad command line).
import fs from 'node:fs';
import path from 'node:path';
import { buildRequest, helpText, parseArgs, UsageError, type AdminRequest } from './cli/args.js';
import { followJob } from './cli/progress-bar.js';
import { printLakeConnect } from './cli/lake-connect.js';
import { runLakeMigrate } from './cli/lake-migrate.js';
import { runPrices } from './cli/prices.js';

/** --url, else MARGINAL_URL, else the local default; a trailing /v1 is tolerated. */
function baseUrl(flag: string | true | undefined, env: NodeJS.ProcessEnv): string {
  const given = typeof flag === 'string' ? flag : env.MARGINAL_URL || `http://127.0.0.1:${env.PORT || '8080'}`;
  return given.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/**
 * --token, else MARGINAL_ADMIN_TOKEN, else the token `npm start` generated into
 * $DATA_DIR/instance-secrets.json. Only reads that file: the CLI never creates secrets.
 */
function adminToken(flag: string | true | undefined, env: NodeJS.ProcessEnv): string {
  if (typeof flag === 'string') return flag;
  if (env.MARGINAL_ADMIN_TOKEN) return env.MARGINAL_ADMIN_TOKEN;
  const file = path.join(path.resolve(env.DATA_DIR || './data'), 'instance-secrets.json');
  try {
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as { adminToken?: unknown };
    if (typeof stored.adminToken === 'string' && stored.adminToken) return stored.adminToken;
  } catch {
    /* fall through to the usage error */
  }
  throw new UsageError(`no admin token: pass --token, set MARGINAL_ADMIN_TOKEN, or run where ${file} exists (npm start creates it)`);
}

async function send(url: string, token: string, req: AdminRequest): Promise<{ ok: boolean; body: unknown }> {
  const target = `${url}/v1/admin${req.path}`;
  let res: Response;
  try {
    res = await fetch(target, {
      method: req.method,
      headers: { authorization: `Bearer ${token}`, ...(req.body ? { 'content-type': 'application/json' } : {}) },
      body: req.body ? JSON.stringify(req.body) : undefined,
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return {
      ok: false,
      body: {
        error: {
          code: 'CONNECTION_FAILED',
          message: `cannot reach ${url} (${cause?.code ?? cause?.message ?? (err as Error).message}); is Marginal running (npm start)?`,
        },
      },
    };
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { error: { code: `HTTP_${res.status}`, message: text.slice(0, 500) } };
  }
  return { ok: res.ok, body };
}

/** A file answer (a FOCUS export) written to `out`; what was written, or the error's JSON. */
async function download(url: string, token: string, req: AdminRequest, out: string): Promise<{ ok: boolean; body: unknown }> {
  const res = await fetch(`${url}/v1/admin${req.path}`, { headers: { authorization: `Bearer ${token}` } }).catch(() => null);
  if (!res) return send(url, token, req); // the same connection error as every command
  if (!res.ok) return { ok: false, body: await res.json().catch(() => ({ error: { code: `HTTP_${res.status}` } })) };
  const bytes = Buffer.from(await res.arrayBuffer());
  fs.writeFileSync(out, bytes);
  return { ok: true, body: { file: out, bytes: bytes.length, rows: Number(res.headers.get('x-total-rows')) } };
}

/** Polls the created re-pricing, drawing the bar on stderr (redrawn in place on a terminal). */
async function followRepricing(url: string, token: string, createdPath: string, created: { repricing_id: string }) {
  const jobPath = `${createdPath}/${encodeURIComponent(created.repricing_id)}`;
  let failure: { ok: boolean; body: unknown } | null = null;
  const tty = process.stderr.isTTY;
  try {
    const body = await followJob(
      async () => {
        const res = await send(url, token, { method: 'GET', path: jobPath });
        if (!res.ok) {
          failure = res;
          throw new Error('poll failed');
        }
        return res.body as { status: string; progress_percent: number; events_repriced: number; events_total: number };
      },
      (line) => process.stderr.write(tty ? `\r${line}` : `${line}\n`),
    );
    if (tty) process.stderr.write('\n');
    return { ok: true, body };
  } catch (err) {
    if (failure) return failure;
    throw err;
  }
}

/** A card write's answer: the re-pricing it offers (a path under /v1/admin), null when there is nothing to re-price. */
interface CardWriteAnswer {
  repricing: { path: string; body: Record<string, unknown> } | null;
}

/** Sends the re-pricing a card write offers and follows it unless `detach`; answers the card and the job together. */
async function repriceOffered(url: string, token: string, written: CardWriteAnswer, detach: boolean) {
  if (!written.repricing) return { ok: true, body: { rate_card: written, repricing: null } };
  const path = written.repricing.path.replace(/^\/v1\/admin/, '');
  let res = await send(url, token, { method: 'POST', path, body: written.repricing.body });
  if (res.ok && !detach) res = await followRepricing(url, token, path, res.body as { repricing_id: string });
  return { ok: res.ok, body: { rate_card: written, repricing: res.body } };
}

async function main(argv: string[]): Promise<number> {
  try {
    if (argv[0] === 'prices') return runPrices(argv.slice(1));
    if (argv[0] === 'lake' && argv[1] === 'connect') return printLakeConnect();
    if (argv[0] === 'lake' && argv[1] === 'migrate') return runLakeMigrate(argv.slice(2));
    const parsed = parseArgs(argv);
    if (parsed.command === 'help') {
      console.log(helpText());
      return 0;
    }
    const request = buildRequest(parsed.command, parsed.flags);
    const url = baseUrl(parsed.flags.get('url'), process.env);
    const token = adminToken(parsed.flags.get('token'), process.env);
    const out = parsed.flags.get('out');
    let { ok, body } =
      parsed.command.download && typeof out === 'string' ? await download(url, token, request, out) : await send(url, token, request);
    if (ok && parsed.command.follow === 'repricing' && !parsed.flags.has('detach')) {
      ({ ok, body } = await followRepricing(url, token, request.path, body as { repricing_id: string }));
    }
    if (ok && parsed.command.repriceFlag && parsed.flags.has('reprice')) {
      ({ ok, body } = await repriceOffered(url, token, body as CardWriteAnswer, parsed.flags.has('detach')));
    }
    (ok ? process.stdout : process.stderr).write(`${JSON.stringify(body, null, 2)}\n`);
    return ok ? 0 : 1;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const message = `${err.message} (npm run cli -- help lists every command)`;
    process.stderr.write(`${JSON.stringify({ error: { code: 'USAGE', message } }, null, 2)}\n`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
