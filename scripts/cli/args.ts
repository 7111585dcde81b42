// Turns CLI arguments into one admin API request, using the command table: pure, no I/O, so the
// whole surface is unit-tested without a server.
import { COMMANDS, type CommandSpec, type FlagSpec } from './commands.js';

/** A mistake in the command line (exit code 2), as opposed to an API error (exit code 1). */
export class UsageError extends Error {}

/** Flags every command accepts. */
const GLOBAL_FLAGS = ['url', 'token'] as const;

export interface ParsedArgs {
  command: CommandSpec | 'help';
  /** Flag name → value (`true` for boolean flags), the global ones included. */
  flags: Map<string, string | true>;
}

export interface AdminRequest {
  method: CommandSpec['method'];
  /** Path under /v1/admin, parameters filled and URL-encoded. */
  path: string;
  body?: Record<string, unknown>;
}

function findCommand(resource: string, action: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.resource === resource && c.action === action);
}

/** `<resource> <action> [--flag value | --flag=value | --boolean-flag]…`, or `help`. */
export function parseArgs(argv: string[]): ParsedArgs {
  const flags = new Map<string, string | true>();
  if (argv.length === 0 || argv.includes('--help') || argv[0] === 'help') return { command: 'help', flags };
  const [resource, action] = argv;
  if (resource!.startsWith('--') || action === undefined || action.startsWith('--')) {
    throw new UsageError('expected "<resource> <action> [--flag value]…" (see: npm run cli -- help)');
  }
  const command = findCommand(resource!, action);
  if (!command) {
    const actions = COMMANDS.filter((c) => c.resource === resource).map((c) => c.action);
    throw new UsageError(
      actions.length > 0
        ? `unknown action "${action}" for ${resource}; one of: ${actions.join(', ')}`
        : `unknown resource "${resource}"; one of: ${[...new Set(COMMANDS.map((c) => c.resource))].join(', ')}`,
    );
  }
  const booleans = new Set(command.flags.filter((f) => f.type === 'boolean').map((f) => f.name));
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}" (flags look like --name value)`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (flags.has(name)) throw new UsageError(`--${name} given twice`);
    if (eq !== -1) {
      flags.set(name, arg.slice(eq + 1));
    } else if (booleans.has(name)) {
      flags.set(name, true);
    } else {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
      i++;
    }
  }
  return { command, flags };
}

function bodyField(flag: FlagSpec): string {
  return flag.field ?? flag.name.replace(/-/g, '_');
}

function convert(flag: FlagSpec, raw: string | true): unknown {
  if (flag.type === 'boolean') {
    if (raw === true || raw === 'true') return true;
    if (raw === 'false') return false;
    throw new UsageError(`--${flag.name} takes no value (or =true / =false)`);
  }
  if (raw === true) throw new UsageError(`--${flag.name} needs a value`);
  if (flag.type === 'integer') {
    if (!/^\d+$/.test(raw)) throw new UsageError(`--${flag.name} must be a whole number, got "${raw}"`);
    return Number(raw);
  }
  if (flag.type === 'list')
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (flag.type === 'json') {
    try {
      // Numbers in the JSON stay as written only when quoted: pass rates as strings ("3.75").
      return JSON.parse(raw) as unknown;
    } catch {
      throw new UsageError(`--${flag.name} must be JSON, got ${raw}`);
    }
  }
  if (flag.type === 'number') {
    if (!/^-?\d+(\.\d+)?$/.test(raw)) throw new UsageError(`--${flag.name} must be a number, got "${raw}"`);
    return Number(raw);
  }
  if (flag.type === 'integer-list') {
    const items = raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (!items.every((s) => /^\d+$/.test(s)))
      throw new UsageError(`--${flag.name} must be whole numbers separated by commas, got "${raw}"`);
    return items.map(Number);
  }
  return raw;
}

/** The API request a parsed command line stands for. */
export function buildRequest(command: CommandSpec, flags: Map<string, string | true>): AdminRequest {
  const specs = new Map(command.flags.map((f) => [f.name, f]));
  for (const name of flags.keys()) {
    if (!specs.has(name) && !(GLOBAL_FLAGS as readonly string[]).includes(name)) {
      throw new UsageError(`unknown flag --${name} for "${command.resource} ${command.action}"`);
    }
  }
  const missing = command.flags.filter((f) => f.required && !flags.has(f.name)).map((f) => `--${f.name}`);
  if (missing.length > 0) throw new UsageError(`missing ${missing.join(', ')} for "${command.resource} ${command.action}"`);
  if (command.exactlyOneOf) {
    const given = command.exactlyOneOf.filter((n) => flags.has(n));
    if (given.length !== 1) throw new UsageError(`give exactly one of ${command.exactlyOneOf.map((n) => `--${n}`).join(', ')}`);
  }
  let path = command.path;
  const body: Record<string, unknown> = { ...command.fixedBody };
  for (const flag of command.flags) {
    const raw = flags.get(flag.name);
    if (raw === undefined || flag.local) continue;
    const value = convert(flag, raw);
    if (flag.pathParam) path = path.replace(`{${flag.pathParam}}`, encodeURIComponent(String(value)));
    else body[bodyField(flag)] = value;
  }
  const sendsBody = command.method === 'POST' || command.method === 'PATCH' || command.method === 'PUT';
  // A GET's flags are its query parameters.
  if (command.method === 'GET' && Object.keys(body).length > 0) {
    path += `?${new URLSearchParams(Object.entries(body).map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
  }
  return { method: command.method, path, ...(sendsBody ? { body } : {}) };
}

/** The `help` text: every command with its flags, from the table. */
export function helpText(): string {
  const lines = [
    'Usage: npm run cli -- <resource> <action> [--flag value]…',
    '',
    'Calls the Marginal admin API and prints its JSON response. Errors go to stderr (exit 1;',
    'exit 2 for a bad command line).',
    '',
    'Global flags:',
    '  --url <origin>    Marginal base URL (default $MARGINAL_URL, else http://127.0.0.1:$PORT, PORT=8080)',
    '  --token <token>   admin token (default $MARGINAL_ADMIN_TOKEN, else $DATA_DIR/instance-secrets.json)',
    '',
    'Commands:',
  ];
  for (const c of COMMANDS) {
    const usage = c.flags
      .map((f) => {
        const text = f.type === 'boolean' ? `--${f.name}` : `--${f.name} <${f.name === 'org' ? 'organization_id' : f.name}>`;
        return f.required ? text : `[${text}]`;
      })
      .join(' ');
    lines.push(`  ${c.resource} ${c.action} ${usage}`.trimEnd(), `      ${c.summary}. ${c.method} /v1/admin${c.path}`);
    if (c.exactlyOneOf) lines.push(`      Give exactly one of ${c.exactlyOneOf.map((n) => `--${n}`).join(', ')}.`);
    for (const f of c.flags.filter((f) => f.name !== 'org')) lines.push(`        --${f.name}: ${f.help}`);
  }
  lines.push(
    '  prices diff',
    '      What the pinned @pydantic/genai-prices package would change in the standard cards (local, no server).',
    '  prices apply [--effective-from YYYY-MM-DD]',
    '      Appends those changes as new effective-dated standard cards (default today); never edits a card.',
    '  lake connect',
    '      The DuckDB statements that attach the open lake read-only from this environment (local, no server).',
    '  lake migrate [--remove-old]',
    '      Moves the manifest lake of LAKE_DIR into the open lake (LAKE_URL, LAKE_CATALOG_URL): resumable, verified per organization and day;',
    '      --remove-old then deletes the old files (local, no server; stop every processor first).',
  );
  lines.push('  help', '      This text.');
  return lines.join('\n');
}
