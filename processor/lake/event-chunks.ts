// LakeEventRows written into DuckDB data chunks in the events schema's physical types, ready for
// appender.appendDataChunk. Per-value appender calls (47 native calls a row) and a VARCHAR/DOUBLE
// "wire" table cast afterwards cost more than the rest of a flush; here numbers, timestamps,
// dates, booleans and money go into plain typed arrays copied once per chunk, and only non-null
// strings cross into DuckDB one by one. Exact: money is parsed from its decimal string into
// DECIMAL(38,12)'s 128-bit integer (value × 10^12), rounding past 12 places half away from zero as
// DuckDB's VARCHAR → DECIMAL cast does; timestamps are the Date's milliseconds × 1000.
import duckdb from '@duckdb/node-bindings';
import { BIGINT, BOOLEAN, DATE, DECIMAL, DOUBLE, DuckDBDataChunk, INTEGER, TIMESTAMP, VARCHAR, type DuckDBType } from '@duckdb/node-api';
import { EVENTS_COLUMNS, type LakeEventRow, type LakeValueKind } from '../../core/lake/events-schema.js';
import { Big } from '../../core/money.js';
import { DAY_MS } from '../../core/time.js';

const CHUNK_ROWS: number = duckdb.vector_size();
const TWO_32 = 4294967296;

// Physical layouts, as small integers so the per-row loop is one switch.
const VARCHAR_ = 0;
const BOOLEAN_ = 1;
const DOUBLE_ = 2;
const INT32 = 3; // INTEGER
const INT64 = 4; // BIGINT
const TIMESTAMP_ = 5; // int64 microseconds
const DATE_ = 6; // int32 days; event_date, derived from event_timestamp
const DECIMAL_ = 7; // int128, value × 10^12

const LAYOUT: Record<LakeValueKind, number> = {
  string: VARCHAR_,
  boolean: BOOLEAN_,
  double: DOUBLE_,
  integer: INT32,
  bigint: INT64,
  timestamp: TIMESTAMP_,
  date: DATE_,
  decimal: DECIMAL_,
};

const DUCKDB_TYPE: Record<LakeValueKind, DuckDBType> = {
  string: VARCHAR,
  boolean: BOOLEAN,
  double: DOUBLE,
  integer: INTEGER,
  bigint: BIGINT,
  timestamp: TIMESTAMP,
  date: DATE,
  decimal: DECIMAL(38, 12),
};

/** Bytes per value of a layout (VARCHAR: DuckDB's 16-byte string_t, see writeInlineString). */
const WIDTH = [16, 1, 8, 4, 8, 8, 4, 16];

interface Column {
  readonly name: keyof LakeEventRow;
  readonly kind: LakeValueKind;
  readonly layout: number;
  readonly nullable: boolean;
  /** Values of the chunk being filled; u32/i32/f64/u8 views of one buffer. */
  readonly bytes: Uint8Array;
  readonly u32: Uint32Array;
  readonly i32: Int32Array;
  readonly f64: Float64Array;
  /** Validity bitmap of the chunk being filled (bit set = not null). */
  readonly validity: Uint8Array;
  nulls: number;
  /** VARCHAR only: rows whose string DuckDB holds (assigned natively, not inlined here). */
  readonly assigned: number[];
}

const TYPES = EVENTS_COLUMNS.map((c) => DUCKDB_TYPE[c.kind]);

// Column buffers (~0.5 MB a set) are only needed while a chunk fills, and a filled chunk owns a
// copy in DuckDB, so sets are reused rather than allocated per batch: one per batch filling now.
const spareColumns: Column[][] = [];

function newColumns(): Column[] {
  return EVENTS_COLUMNS.map((c) => {
    const buffer = new ArrayBuffer(CHUNK_ROWS * WIDTH[LAYOUT[c.kind]]!);
    const validity = new Uint8Array(CHUNK_ROWS / 8);
    validity.fill(0xff);
    return {
      name: (c.name === 'event_date' ? 'event_timestamp' : c.name) as keyof LakeEventRow,
      kind: c.kind,
      layout: LAYOUT[c.kind],
      nullable: c.nullable,
      bytes: new Uint8Array(buffer),
      u32: new Uint32Array(buffer),
      i32: new Int32Array(buffer),
      f64: new Float64Array(buffer),
      validity,
      nulls: 0,
      assigned: [],
    };
  });
}

// DuckDB's string_t (duckdb_string_t in the C API) is 16 bytes: a uint32 length, then for strings
// of at most 12 bytes the bytes themselves, zero-padded ("inlined"); longer strings point into the
// vector's own heap and must be assigned through DuckDB. Short ASCII strings (statuses, slugs,
// short ids) are written here, straight into the column buffer copied at seal, which saves a
// native call per value; anything else takes vector_assign_string_element.
const INLINE_MAX = 12;

/** Writes `s` as an inlined string_t at row r; false when it is longer than 12 or not ASCII. */
function writeInlineString(bytes: Uint8Array, u32: Uint32Array, r: number, s: string): boolean {
  const n = s.length;
  if (n > INLINE_MAX) return false;
  const at = r * 16 + 4;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return false;
    bytes[at + i] = c;
  }
  for (let i = n; i < INLINE_MAX; i++) bytes[at + i] = 0;
  u32[r * 4] = n;
  return true;
}

/** A null VARCHAR slot: zeroed, so no stale bytes look like a string. */
function clearString(u32: Uint32Array, r: number): void {
  u32[r * 4] = 0;
  u32[r * 4 + 1] = 0;
  u32[r * 4 + 2] = 0;
  u32[r * 4 + 3] = 0;
}

/** Two's complement little-endian int64 of a safe integer into u32[at], u32[at + 1]. */
function writeInt64(u32: Uint32Array, at: number, v: number): void {
  u32[at] = v >>> 0;
  u32[at + 1] = Math.floor(v / TWO_32) >>> 0;
}

function writeBigInt(u32: Uint32Array, at: number, v: bigint, words: number): void {
  let u = BigInt.asUintN(32 * words, v);
  for (let i = 0; i < words; i++) {
    u32[at + i] = Number(u & 0xffffffffn);
    u >>= 32n;
  }
}

const MAX_SCALED = 10n ** 38n; // DECIMAL(38,12): at most 38 digits in all

/**
 * Writes the decimal string `s` (-?digits(.digits)?) as DECIMAL(38,12)'s int128 into u32[at..at+3].
 * Returns false when `s` is not such a string or does not fit.
 */
function writeMoney(u32: Uint32Array, at: number, s: string): boolean {
  const n = s.length;
  let i = 0;
  const negative = n > 0 && s.charCodeAt(0) === 45; // '-'
  if (negative) i = 1;
  let v = 0; // value × 10^(fraction digits read so far, at most 12)
  let intDigits = 0;
  let fracDigits = 0;
  let roundUp = false;
  let extra = 0; // fraction digits past the 12th
  let exact = true; // v is still exact (below 2^53)
  for (; i < n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) break;
    intDigits++;
    if (v >= 9e14) exact = false;
    else v = v * 10 + d;
  }
  if (intDigits === 0) return false;
  if (i < n) {
    if (s.charCodeAt(i) !== 46 || i === n - 1) return false; // '.' followed by digits
    for (i++; i < n; i++) {
      const d = s.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return false;
      if (fracDigits === 12) {
        if (extra++ === 0) roundUp = d >= 5; // the 13th digit decides
        continue;
      }
      fracDigits++;
      if (v >= 9e14) exact = false;
      else v = v * 10 + d;
    }
  }
  const pad = 10 ** (12 - fracDigits);
  if (exact && v <= Number.MAX_SAFE_INTEGER / pad - 1) {
    v = v * pad + (roundUp ? 1 : 0);
    if (negative && v > 0) {
      // Two's complement of v: ~(v - 1) over 128 bits.
      const m = v - 1;
      u32[at] = ~(m >>> 0) >>> 0;
      u32[at + 1] = ~(Math.floor(m / TWO_32) >>> 0) >>> 0;
      u32[at + 2] = 0xffffffff;
      u32[at + 3] = 0xffffffff;
    } else {
      u32[at] = v >>> 0;
      u32[at + 1] = Math.floor(v / TWO_32) >>> 0;
      u32[at + 2] = 0;
      u32[at + 3] = 0;
    }
    return true;
  }
  // Large values: the same arithmetic on a BigInt.
  const body = negative ? s.slice(1) : s;
  const dot = body.indexOf('.');
  const whole = dot < 0 ? body : body.slice(0, dot);
  const fraction = dot < 0 ? '' : body.slice(dot + 1);
  let scaled = BigInt(whole + fraction.slice(0, 12).padEnd(12, '0'));
  if (fraction.length > 12 && fraction.charCodeAt(12) >= 53) scaled += 1n;
  if (scaled >= MAX_SCALED) return false;
  writeBigInt(u32, at, negative ? -scaled : scaled, 4);
  return true;
}

/** Writes one row's values into slot r of the chunk being filled (see rowWriterSource). */
type RowWriter = (row: LakeEventRow, r: number, columns: Column[], vectors: duckdb.Vector[]) => void;

// What the generated writer calls; passed in rather than closed over (it is built by new Function).
const WRITER_HELPERS = {
  invalid,
  assign: (vector: duckdb.Vector, r: number, s: string) => duckdb.vector_assign_string_element(vector, r, s),
  writeInlineString,
  clearString,
  writeInt64,
  writeBigInt,
  writeMoney: (u32: Uint32Array, at: number, s: string) => writeMoney(u32, at, s) || writeOtherMoney(u32, at, s),
};

/**
 * The body of the row writer: one straight block per column, in EVENTS_COLUMNS order, reading
 * its field by name. A loop over the columns reading row[column.name] made every read a
 * megamorphic keyed load and every value go through a switch on the layout (the processor's
 * hottest JavaScript: 3.0 -> 2.25 us per row written), where these named reads stay monomorphic
 * (rows share one shape). Each block does what the layout needs: validate, then write the value or
 * mark it null.
 */
function rowWriterSource(): string {
  const lines = ['let v, c;'];
  EVENTS_COLUMNS.forEach((column, ci) => {
    const layout = LAYOUT[column.kind];
    const field = column.name === 'event_date' ? 'event_timestamp' : column.name;
    lines.push(`v = row[${JSON.stringify(field)}]; c = columns[${ci}];`);
    lines.push(
      column.nullable
        ? `if (v === null || v === undefined) { c.validity[r >> 3] &= ~(1 << (r & 7)); c.nulls++;${layout === VARCHAR_ ? ' h.clearString(c.u32, r);' : ''} } else {`
        : `if (v === null || v === undefined) throw h.invalid(row, c, v); else {`,
    );
    const bad = (test: string) => `if (${test}) throw h.invalid(row, c, v);`;
    switch (layout) {
      case VARCHAR_:
        lines.push(
          bad(`typeof v !== 'string'`),
          `if (!h.writeInlineString(c.bytes, c.u32, r, v)) { h.assign(vectors[${ci}], r, v); c.assigned.push(r); }`,
        );
        break;
      case BOOLEAN_:
        lines.push(bad(`typeof v !== 'boolean'`), 'c.bytes[r] = v ? 1 : 0;');
        break;
      case DOUBLE_:
        lines.push(bad(`typeof v !== 'number' || !Number.isFinite(v)`), 'c.f64[r] = v;');
        break;
      case INT32:
        lines.push(bad('!Number.isSafeInteger(v) || v < -2147483648 || v > 2147483647'), 'c.i32[r] = v;');
        break;
      case INT64:
        lines.push(bad('!Number.isSafeInteger(v)'), 'h.writeInt64(c.u32, 2 * r, v);');
        break;
      case TIMESTAMP_:
        lines.push(
          'const ms = v instanceof Date ? v.getTime() : NaN;',
          bad('!Number.isFinite(ms)'),
          'const micros = ms * 1000;',
          'if (Number.isSafeInteger(micros)) h.writeInt64(c.u32, 2 * r, micros); else h.writeBigInt(c.u32, 2 * r, BigInt(ms) * 1000n, 2);',
        );
        break;
      case DATE_:
        lines.push(
          'const ms = v instanceof Date ? v.getTime() : NaN;',
          bad('!Number.isFinite(ms)'),
          `c.i32[r] = Math.floor(ms / ${DAY_MS});`,
        );
        break;
      default:
        lines.push(bad(`typeof v !== 'string' || !h.writeMoney(c.u32, 4 * r, v)`));
    }
    lines.push('}');
  });
  return lines.join('\n');
}

/**
 * Other spellings DuckDB's cast also took ("1e5", ".5"): pricing never writes them, but a row that
 * holds one is read through big.js into plain notation rather than refused.
 */
function writeOtherMoney(u32: Uint32Array, at: number, s: string): boolean {
  let plain: string;
  try {
    plain = new Big(s).toFixed();
  } catch {
    return false;
  }
  return writeMoney(u32, at, plain);
}

/**
 * Accumulates rows as filled data chunks in the events schema (event_date derived from
 * event_timestamp). add() validates each value as the old appender did and throws a TypeError
 * naming the row and column for one the lake cannot hold.
 */
export class EventChunks {
  private columns: Column[] = [];
  private readonly done: DuckDBDataChunk[] = [];
  private chunk: DuckDBDataChunk | null = null;
  private vectors: duckdb.Vector[] = [];
  private rows = 0;
  private total = 0;

  /** Rows added so far. */
  get size(): number {
    return this.total;
  }

  add(row: LakeEventRow): void {
    if (this.chunk === null) {
      this.chunk = DuckDBDataChunk.create(TYPES);
      this.vectors = TYPES.map((_, i) => duckdb.data_chunk_get_vector(this.chunk!.chunk, i));
      this.columns = spareColumns.pop() ?? newColumns();
    }
    try {
      this.write(row);
    } catch (e) {
      // Leave the slot as if the row never came: the next row overwrites its values.
      const r = this.rows;
      for (const col of this.columns) {
        col.validity[r >> 3]! |= 1 << (r & 7);
        if (col.assigned[col.assigned.length - 1] === r) col.assigned.pop();
      }
      throw e;
    }
    this.rows++;
    this.total++;
    if (this.rows === CHUNK_ROWS) this.seal();
  }

  private write(row: LakeEventRow): void {
    writeRow(row, this.rows, this.columns, this.vectors);
  }

  /** The filled chunks; the builder is spent afterwards. */
  finish(): DuckDBDataChunk[] {
    if (this.rows > 0) this.seal();
    return this.done;
  }

  /** Copies the chunk's typed values and validity into DuckDB and starts a new chunk. */
  private seal(): void {
    const n = this.rows;
    for (let ci = 0; ci < this.columns.length; ci++) {
      const col = this.columns[ci]!;
      const vector = this.vectors[ci]!;
      if (col.layout === VARCHAR_ && col.assigned.length > 0) {
        if (col.assigned.length === n) {
          col.assigned.length = 0;
          continue; // every string is DuckDB's already
        }
        // Take the string_t of the natively assigned rows from DuckDB into the buffer, so copying
        // the whole buffer back leaves them as they are.
        const held = duckdb.vector_get_data(vector, n * 16);
        for (const r of col.assigned) col.bytes.set(held.subarray(r * 16, r * 16 + 16), r * 16);
        col.assigned.length = 0;
      }
      duckdb.copy_data_to_vector(vector, 0, col.bytes.buffer as ArrayBuffer, 0, n * WIDTH[col.layout]!);
      if (col.nulls > 0) {
        duckdb.vector_ensure_validity_writable(vector);
        duckdb.copy_data_to_vector_validity(vector, 0, col.validity.buffer as ArrayBuffer, 0, Math.ceil(n / 64) * 8);
        col.validity.fill(0xff);
        col.nulls = 0;
      }
    }
    this.chunk!.rowCount = n;
    this.done.push(this.chunk!);
    this.chunk = null;
    this.vectors = [];
    this.rows = 0;
    spareColumns.push(this.columns);
    this.columns = [];
  }
}

function invalid(row: LakeEventRow, col: Column, v: unknown): TypeError {
  const name = col.kind === 'date' ? 'event_timestamp' : col.name;
  return new TypeError(`lake row ${String(row.event_id)}: ${name} = ${String(v)} is not a valid ${col.kind}`);
}

const writeRow: RowWriter = (() => {
  const build = new Function('h', `return function writeRow(row, r, columns, vectors) {\n${rowWriterSource()}\n};`);
  return build(WRITER_HELPERS) as RowWriter;
})();
