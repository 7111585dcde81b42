// Test control planes: a fresh, migrated ControlDb per test file on PGlite (in memory) and on the
// real PostgreSQL that global-setup injects (a new database per file), plus a tenant builder.
// Without a PostgreSQL URL the postgres variant is skipped with a warning (an error under CI).
import crypto from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import type { Scope } from '../../core/auth/scopes.js';
import { SCOPES } from '../../core/auth/scopes.js';
import { issueApiKey } from '../../core/control/api-keys.js';
import { grantCredits } from '../../core/control/credits.js';
import { openControlDb, type ControlDb } from '../../core/control/db.js';
import { migrate } from '../../core/control/migrate.js';
import { createOrganization } from '../../core/control/organizations.js';

export type ControlDbKind = 'pglite' | 'postgres';
export const CONTROL_DB_KINDS: readonly ControlDbKind[] = ['pglite', 'postgres'];

/** The master key tests encrypt signing secrets with (32 bytes, 0x00..0x1f). */
export const TEST_MASTER_KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => i));

export interface FreshControlDb {
  db: ControlDb;
  /** Connection URL of the fresh PostgreSQL database (null on PGlite), to open more pools. */
  url: string | null;
  /** Closes the db and drops the PostgreSQL database. */
  dispose(): Promise<void>;
}

/** The injected PostgreSQL URL, or '' when none is available. */
export function testPostgresUrl(): string {
  return inject('postgresUrl') ?? '';
}

/**
 * A new empty database: CREATE DATABASE on the server, or, when the role may not create
 * databases (an external TEST_DATABASE_URL), a fresh schema selected through search_path.
 */
async function createPostgresDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `marginal_t_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      async drop() {
        const c = new pg.Client({ connectionString: serverUrl });
        await c.connect();
        try {
          await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        } finally {
          await c.end();
        }
      },
    };
  } catch (err) {
    if ((err as { code?: string }).code !== '42501') throw err;
    await admin.query(`CREATE SCHEMA ${name}`);
    const url = new URL(serverUrl);
    url.searchParams.set('options', `-c search_path=${name}`);
    return {
      url: url.toString(),
      async drop() {
        const c = new pg.Client({ connectionString: serverUrl });
        await c.connect();
        try {
          await c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
        } finally {
          await c.end();
        }
      },
    };
  } finally {
    await admin.end();
  }
}

/** A fresh control plane of the given kind, migrated unless `migrate: false`. */
export async function openFreshControlDb(kind: ControlDbKind, opts: { migrate?: boolean } = {}): Promise<FreshControlDb> {
  if (kind === 'pglite') {
    const db = await openControlDb({ databaseUrl: null, pgliteDir: null });
    if (opts.migrate !== false) await migrate(db);
    return { db, url: null, dispose: () => db.close() };
  }
  const serverUrl = testPostgresUrl();
  if (!serverUrl) throw new Error('no PostgreSQL available for tests (postgresUrl is empty)');
  const database = await createPostgresDatabase(serverUrl);
  const db = await openControlDb({ databaseUrl: database.url, pgliteDir: null });
  try {
    if (opts.migrate !== false) await migrate(db);
  } catch (err) {
    await db.close();
    await database.drop();
    throw err;
  }
  return {
    db,
    url: database.url,
    async dispose() {
      await db.close();
      await database.drop();
    },
  };
}

export interface ControlDbSuite {
  kind: ControlDbKind;
  /** The suite's migrated database (valid inside tests and hooks). */
  db(): ControlDb;
  /** The PostgreSQL URL of that database (null on PGlite). */
  url(): string | null;
}

/**
 * Declares `body` once per control-plane kind, as `describe("<title> [pglite]")` and
 * `describe("<title> [postgres]")`, each with its own fresh migrated database.
 */
export function describeEachControlDb(title: string, body: (suite: ControlDbSuite) => void): void {
  for (const kind of CONTROL_DB_KINDS) {
    if (kind === 'postgres' && !testPostgresUrl()) {
      const msg = `[control-db] no PostgreSQL for "${title}": set TEST_DATABASE_URL or install PostgreSQL`;
      if (process.env.CI) throw new Error(`${msg} (required under CI)`);
      console.warn(`${msg}; the postgres variant is SKIPPED`);
      describe.skip(`${title} [postgres]`, () => body({ kind, db: unavailable, url: () => null }));
      continue;
    }
    describe(`${title} [${kind}]`, () => {
      let fresh: FreshControlDb | undefined;
      beforeAll(async () => {
        fresh = await openFreshControlDb(kind);
      });
      afterAll(async () => {
        await fresh?.dispose();
      });
      body({
        kind,
        db: () => {
          if (!fresh) throw new Error('control db used outside a test');
          return fresh.db;
        },
        url: () => fresh?.url ?? null,
      });
    });
  }
}

function unavailable(): never {
  throw new Error('control db unavailable');
}

export interface TestTenant {
  organizationId: string;
  keyId: string;
  apiKey: string;
  signingSecret: string;
  ownerUserId: string;
}

/**
 * An organization with one API key (all scopes unless narrowed) and `credits` event credits
 * (default 1000), encrypted under TEST_MASTER_KEY.
 */
export async function createTestTenant(
  db: ControlDb,
  opts: { name?: string; credits?: number; scopes?: Scope[]; ownerUserId?: string } = {},
): Promise<TestTenant> {
  const org = await createOrganization(db, { name: opts.name ?? `tenant-${crypto.randomBytes(3).toString('hex')}` });
  const key = await issueApiKey(db, TEST_MASTER_KEY, org.id, {
    scopes: opts.scopes ?? [...SCOPES],
    ownerUserId: opts.ownerUserId,
  });
  const credits = opts.credits ?? 1000;
  if (credits > 0) await grantCredits(db, org.id, credits, 'test tenant');
  return {
    organizationId: org.id,
    keyId: key.id,
    apiKey: key.apiKey,
    signingSecret: key.signingSecret,
    ownerUserId: key.ownerUserId,
  };
}
