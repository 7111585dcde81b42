// The dev schema registry's model: subjects, their versions, globally numbered schemas and
// compatibility settings, with Confluent Schema Registry's rules and error codes. Invariants:
// a schema id names one schema text forever (ids are global across subjects and never reused);
// registering a schema already known gets its existing id; every change is handed to `save`
// before it becomes visible, so a crash never leaves memory ahead of the file.
import type avro from 'avsc';
import {
  compatibilityErrors,
  InvalidSchemaError,
  isCompatibilityLevel,
  parseAvroSchema,
  type CompatibilityLevel,
  type ParsedSchema,
} from './compatibility.js';

export interface RegistryState {
  format: 1;
  /** The id the next new schema gets. */
  nextId: number;
  compatibility: CompatibilityLevel;
  schemas: { id: number; schema: string }[];
  subjects: { name: string; compatibility: CompatibilityLevel | null; versions: { version: number; id: number }[] }[];
}

export function emptyRegistryState(): RegistryState {
  return { format: 1, nextId: 1, compatibility: 'BACKWARD', schemas: [], subjects: [] };
}

/** An answer in Confluent's error shape: HTTP status plus `{error_code, message}`. */
export class RegistryError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'RegistryError';
  }
}

const subjectNotFound = (subject: string) => new RegistryError(404, 40401, `Subject '${subject}' not found.`);
const versionNotFound = (version: number) => new RegistryError(404, 40402, `Version ${version} not found.`);
const invalidSchema = (message: string) => new RegistryError(422, 42201, message);

export interface SubjectVersion {
  subject: string;
  version: number;
  id: number;
  schema: string;
}

export interface RegisterRequest {
  schema?: unknown;
  schemaType?: unknown;
  references?: unknown;
}

const MAX_VERSION = 2 ** 31 - 1;

export class SchemaRegistryModel {
  private state: RegistryState;
  private readonly parsed = new Map<number, ParsedSchema>();
  private readonly idByIdentity = new Map<string, number>();

  constructor(
    initial: RegistryState,
    private readonly save: (state: RegistryState) => void,
  ) {
    this.state = initial;
    for (const { id, schema } of initial.schemas) this.remember(id, parseAvroSchema(schema));
  }

  private remember(id: number, parsed: ParsedSchema): void {
    this.parsed.set(id, parsed);
    this.idByIdentity.set(parsed.identity, id);
  }

  private commit(mutate: (next: RegistryState) => void): void {
    const next = structuredClone(this.state);
    mutate(next);
    this.save(next);
    this.state = next;
  }

  private findSubject(name: string) {
    return this.state.subjects.find((s) => s.name === name);
  }

  private requireSubject(name: string) {
    const subject = this.findSubject(name);
    if (!subject || subject.versions.length === 0) throw subjectNotFound(name);
    return subject;
  }

  private schemaText(id: number): string {
    const found = this.state.schemas.find((s) => s.id === id);
    if (!found) throw new RegistryError(404, 40403, `Schema ${id} not found`);
    return found.schema;
  }

  private parseRequest(body: RegisterRequest): ParsedSchema & { text: string } {
    if (body.schemaType !== undefined && body.schemaType !== null && body.schemaType !== 'AVRO') {
      throw invalidSchema(`Invalid schema: schemaType ${String(body.schemaType)} is not supported by the dev registry (AVRO only)`);
    }
    if (Array.isArray(body.references) && body.references.length > 0) {
      throw invalidSchema('Invalid schema: schema references are not supported by the dev registry');
    }
    if (typeof body.schema !== 'string' || body.schema.trim() === '') throw invalidSchema('Empty schema');
    try {
      return { ...parseAvroSchema(body.schema), text: body.schema };
    } catch (e) {
      if (e instanceof InvalidSchemaError) throw invalidSchema(e.message);
      throw e;
    }
  }

  /** Resolves "latest", "-1" or a number to an existing version of the subject. */
  private resolveVersion(subjectName: string, version: string) {
    const subject = this.requireSubject(subjectName);
    if (version === 'latest' || version === '-1') return subject.versions[subject.versions.length - 1]!;
    const n = /^\d+$/.test(version) ? Number(version) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > MAX_VERSION) {
      throw new RegistryError(
        422,
        42202,
        `The specified version '${version}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`,
      );
    }
    const found = subject.versions.find((v) => v.version === n);
    if (!found) throw versionNotFound(n);
    return found;
  }

  private effectiveLevel(subjectName: string): CompatibilityLevel {
    return this.findSubject(subjectName)?.compatibility ?? this.state.compatibility;
  }

  private existingTypes(subjectName: string): { version: number; type: avro.Type }[] {
    const subject = this.findSubject(subjectName);
    return (subject?.versions ?? []).map((v) => ({ version: v.version, type: this.parsed.get(v.id)!.type }));
  }

  /** POST /subjects/{subject}/versions */
  register(subjectName: string, body: RegisterRequest): { id: number } {
    const candidate = this.parseRequest(body);
    const known = this.idByIdentity.get(candidate.identity);
    const subject = this.findSubject(subjectName);
    if (known !== undefined && subject?.versions.some((v) => v.id === known)) return { id: known };

    const errors = compatibilityErrors(this.effectiveLevel(subjectName), candidate.type, this.existingTypes(subjectName));
    if (errors.length > 0) {
      throw new RegistryError(
        409,
        409,
        `Schema being registered is incompatible with an earlier schema for subject "${subjectName}", details: ${errors.join('; ')}`,
      );
    }

    const id = known ?? this.state.nextId;
    this.commit((next) => {
      if (known === undefined) {
        next.schemas.push({ id, schema: candidate.text });
        next.nextId = id + 1;
      }
      let target = next.subjects.find((s) => s.name === subjectName);
      if (!target) {
        target = { name: subjectName, compatibility: null, versions: [] };
        next.subjects.push(target);
      }
      const last = target.versions[target.versions.length - 1];
      target.versions.push({ version: (last?.version ?? 0) + 1, id });
    });
    if (known === undefined) this.remember(id, candidate);
    return { id };
  }

  /** POST /subjects/{subject}: the version under which this exact schema is registered. */
  lookup(subjectName: string, body: RegisterRequest): SubjectVersion {
    const candidate = this.parseRequest(body);
    const subject = this.requireSubject(subjectName);
    const id = this.idByIdentity.get(candidate.identity);
    const found = id === undefined ? undefined : subject.versions.find((v) => v.id === id);
    if (!found) throw new RegistryError(404, 40403, 'Schema not found');
    return { subject: subjectName, version: found.version, id: found.id, schema: this.schemaText(found.id) };
  }

  /** GET /schemas/ids/{id} */
  schemaById(id: number): { schema: string } {
    return { schema: this.schemaText(id) };
  }

  /** GET /schemas/ids/{id}/versions */
  versionsOfSchema(id: number): { subject: string; version: number }[] {
    this.schemaText(id);
    return this.state.subjects.flatMap((s) => s.versions.filter((v) => v.id === id).map((v) => ({ subject: s.name, version: v.version })));
  }

  /** GET /subjects */
  subjects(): string[] {
    return this.state.subjects.filter((s) => s.versions.length > 0).map((s) => s.name);
  }

  /** GET /subjects/{subject}/versions */
  versions(subjectName: string): number[] {
    return this.requireSubject(subjectName).versions.map((v) => v.version);
  }

  /** GET /subjects/{subject}/versions/{version} */
  version(subjectName: string, version: string): SubjectVersion {
    const found = this.resolveVersion(subjectName, version);
    return { subject: subjectName, version: found.version, id: found.id, schema: this.schemaText(found.id) };
  }

  /** DELETE /subjects/{subject}: removes the subject and answers its versions; schema ids stay taken. */
  deleteSubject(subjectName: string): number[] {
    const versions = this.versions(subjectName);
    this.commit((next) => {
      next.subjects = next.subjects.filter((s) => s.name !== subjectName);
    });
    return versions;
  }

  /** POST /compatibility/subjects/{subject}/versions/{version} */
  testCompatibility(subjectName: string, version: string, body: RegisterRequest): { is_compatible: boolean; messages: string[] } {
    const candidate = this.parseRequest(body);
    const level = this.effectiveLevel(subjectName);
    const latest = version === 'latest' || version === '-1';
    if (latest && (this.findSubject(subjectName)?.versions.length ?? 0) === 0) return { is_compatible: true, messages: [] };
    const existing = this.existingTypes(subjectName);
    const against =
      latest && level.endsWith('_TRANSITIVE')
        ? existing
        : existing.filter((e) => e.version === this.resolveVersion(subjectName, version).version);
    // `against` already holds the versions the level names; check each one on its own.
    const plainLevel = level.replace('_TRANSITIVE', '') as CompatibilityLevel;
    const messages = against.flatMap((e) => compatibilityErrors(plainLevel, candidate.type, [e]));
    return { is_compatible: messages.length === 0, messages };
  }

  /** GET /config */
  globalConfig(): { compatibilityLevel: CompatibilityLevel } {
    return { compatibilityLevel: this.state.compatibility };
  }

  /** PUT /config */
  setGlobalConfig(body: { compatibility?: unknown }): { compatibility: CompatibilityLevel } {
    const level = requireLevel(body.compatibility);
    this.commit((next) => {
      next.compatibility = level;
    });
    return { compatibility: level };
  }

  /** GET /config/{subject}; 404 (40408) when the subject has no level of its own, unless defaultToGlobal. */
  subjectConfig(subjectName: string, defaultToGlobal: boolean): { compatibilityLevel: CompatibilityLevel } {
    const own = this.findSubject(subjectName)?.compatibility ?? null;
    if (own) return { compatibilityLevel: own };
    if (defaultToGlobal) return this.globalConfig();
    throw new RegistryError(404, 40408, `Subject '${subjectName}' does not have subject-level compatibility configured`);
  }

  /** PUT /config/{subject}; allowed before the subject's first version, as in Confluent. */
  setSubjectConfig(subjectName: string, body: { compatibility?: unknown }): { compatibility: CompatibilityLevel } {
    const level = requireLevel(body.compatibility);
    this.commit((next) => {
      const target = next.subjects.find((s) => s.name === subjectName);
      if (target) target.compatibility = level;
      else next.subjects.push({ name: subjectName, compatibility: level, versions: [] });
    });
    return { compatibility: level };
  }

  /** DELETE /config/{subject}: back to the global level; answers the level it had. */
  deleteSubjectConfig(subjectName: string): { compatibilityLevel: CompatibilityLevel } {
    const previous = this.subjectConfig(subjectName, false);
    this.commit((next) => {
      const target = next.subjects.find((s) => s.name === subjectName)!;
      target.compatibility = null;
      next.subjects = next.subjects.filter((s) => s.versions.length > 0 || s.compatibility !== null);
    });
    return previous;
  }
}

function requireLevel(value: unknown): CompatibilityLevel {
  const level = typeof value === 'string' ? value.toUpperCase() : value;
  if (!isCompatibilityLevel(level)) throw new RegistryError(422, 42203, 'Invalid compatibility level');
  return level;
}
