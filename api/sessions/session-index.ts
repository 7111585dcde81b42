// Which session_spans files hold which sessions, kept per process. A session spans all time, so
// without this a tree reads every day's file of the organization; lake files are immutable (never
// rewritten under the same name), so each file is indexed once, when the manifests first name it,
// and a tree then reads only the files that may hold its session. Per file the index keeps sorted
// 32-bit hashes of its session ids (4 bytes each); a collision only costs reading one more file.
import { Mutex } from 'async-mutex';
import { LRUCache } from '../../core/cache.js';
import type { LakeQuery } from '../lake/lake-query.js';
import { readParquetSql } from '../../core/lake/parquet-sql.js';

const MAX_ORGANIZATIONS = 256;
/** Files indexed per DuckDB query (bounds the SQL text). */
const INDEX_CHUNK = 500;

interface OrgIndex {
  files: Map<string, Uint32Array>;
  /** Serializes (re)indexing of one organization. */
  lock: Mutex;
}

// Per lake (tests run several in one process), then per organization, least recently used dropped.
const indexes = new WeakMap<LakeQuery, LRUCache<string, OrgIndex>>();

/** FNV-1a over UTF-16 code units: fast, stable, good enough to spread ids over 2^32. */
export function sessionHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function contains(sorted: Uint32Array, value: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

function orgIndex(lake: LakeQuery, organizationId: string): OrgIndex {
  let byOrg = indexes.get(lake);
  if (!byOrg) indexes.set(lake, (byOrg = new LRUCache({ max: MAX_ORGANIZATIONS })));
  let idx = byOrg.get(organizationId);
  if (!idx) byOrg.set(organizationId, (idx = { files: new Map(), lock: new Mutex() }));
  return idx;
}

/** The organization's live session_spans files that may hold the session (from the manifests). */
export async function sessionFiles(lake: LakeQuery, organizationId: string, sessionId: string): Promise<string[]> {
  const idx = orgIndex(lake, organizationId);
  return idx.lock.runExclusive(async () => {
    const live = await lake.reader.files('session_spans', organizationId);
    const liveSet = new Set(live);
    for (const f of [...idx.files.keys()]) if (!liveSet.has(f)) idx.files.delete(f);
    const fresh = live.filter((f) => !idx.files.has(f));
    for (let i = 0; i < fresh.length; i += INDEX_CHUNK) await indexFiles(lake, organizationId, idx, fresh.slice(i, i + INDEX_CHUNK));
    const h = sessionHash(sessionId);
    return live.filter((f) => contains(idx.files.get(f)!, h));
  });
}

async function indexFiles(lake: LakeQuery, organizationId: string, idx: OrgIndex, files: string[]): Promise<void> {
  const rows = await lake.rows<{ file: string; session_id: string }>(
    { organizationId },
    `SELECT DISTINCT filename AS file, session_id
       FROM ${readParquetSql(files, { filename: true })}
      WHERE organization_id = $org`,
  );
  const hashes = new Map<string, number[]>(files.map((f) => [f, []]));
  for (const r of rows) hashes.get(r.file)?.push(sessionHash(r.session_id));
  for (const [file, list] of hashes) idx.files.set(file, Uint32Array.from(list).sort());
}
