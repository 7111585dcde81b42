// The lake's DDL as planned from the schema: what a missing table, a table missing a column the
// schema gained, and a table that differs from the schema give (pure; the real catalog is in
// test/integration/lake-catalog.test.ts).
import { describe, expect, it } from 'vitest';
import { EVENTS_COLUMNS } from '../../../../core/lake/events-schema.js';
import {
  columnsDdl,
  type ExistingColumn,
  DUCKLAKE_TABLES,
  partitionOffsetsTable,
  planLakeTables,
} from '../../../../core/lake/lake-tables.js';

describe('lake tables', () => {
  it('are events, the four rollups, the dimension coverage and the spend revisions, events partitioned by day', () => {
    expect(DUCKLAKE_TABLES.map((t) => [t.name, t.partitionedBy])).toEqual([
      ['events', ['event_date']],
      ['daily_costs', []],
      ['session_spans', []],
      ['dimension_costs', []],
      ['dimension_numbers', []],
      ['dimension_coverage', []],
      ['spend_revisions', []],
    ]);
  });

  it('column DDL keeps the type and nullability of each column', () => {
    expect(
      columnsDdl([
        { name: 'organization_id', kind: 'string', nullable: false },
        { name: 'total_cost', kind: 'decimal', nullable: false },
        { name: 'quantity', kind: 'double', nullable: true },
        { name: 'odd"name', kind: 'date', nullable: true },
      ]),
    ).toBe('"organization_id" VARCHAR NOT NULL, "total_cost" DECIMAL(38,12) NOT NULL, "quantity" DOUBLE, "odd""name" DATE');
  });

  it('an empty lake: every table created, events partitioned, each partition offset starting at 0', () => {
    const plan = planLakeTables('lake', new Map(), [...DUCKLAKE_TABLES, partitionOffsetsTable(3)]);
    expect(plan.problems).toEqual([]);
    expect(plan.statements.filter((s) => s.startsWith('CREATE TABLE')).map((s) => /lake\."(\w+)"/.exec(s)?.[1])).toEqual([
      'events',
      'daily_costs',
      'session_spans',
      'dimension_costs',
      'dimension_numbers',
      'dimension_coverage',
      'spend_revisions',
      'partition_offsets_p3',
    ]);
    expect(plan.statements).toContain('ALTER TABLE lake."events" SET PARTITIONED BY (event_date)');
    expect(plan.statements).toContain('CREATE TABLE lake."partition_offsets_p3" ("next_offset" BIGINT NOT NULL)');
    expect(plan.statements.at(-1)).toBe('INSERT INTO lake."partition_offsets_p3" VALUES (0)');
    expect(() => partitionOffsetsTable(-1)).toThrow(RangeError);
  });

  it('a complete lake plans nothing; a nullable column the schema gained is added; other differences are problems', () => {
    const asExisting = (drop: string[] = []): ExistingColumn[] =>
      EVENTS_COLUMNS.filter((c) => !drop.includes(c.name)).map((c) => ({
        name: c.name,
        type: c.kind === 'decimal' ? 'DECIMAL(38,12)' : c.kind === 'string' ? 'VARCHAR' : c.kind.toUpperCase(),
        nullable: c.nullable,
      }));
    const events = DUCKLAKE_TABLES.filter((t) => t.name === 'events');
    expect(planLakeTables('lake', new Map([['events', asExisting()]]), events)).toEqual({ statements: [], problems: [] });
    expect(planLakeTables('lake', new Map([['events', asExisting(['pricing_note', 'total_cost'])]]), events)).toEqual({
      statements: ['ALTER TABLE lake."events" ADD COLUMN "pricing_note" VARCHAR'],
      problems: ['events.total_cost is missing and NOT NULL'],
    });
    const drifted = [...asExisting(), { name: 'legacy', type: 'VARCHAR', nullable: true }].map((c) =>
      c.name === 'quantity' ? { ...c, type: 'BIGINT' } : c,
    );
    expect(planLakeTables('lake', new Map([['events', drifted]]), events).problems).toEqual([
      'events.quantity is BIGINT, the schema says DOUBLE',
      'events.legacy is not in the schema',
    ]);
  });
});
