// The SQL of saved what-if scenarios (control plane): organization is the first filter of every
// statement, so one organization's keys never see, run or delete another's.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../core/control/db.js';
import type { WhatIfScenario } from './what-if.types.js';

export interface ScenarioRecord {
  id: string;
  organization_id: string;
  name: string;
  scenario: WhatIfScenario;
  created_at: Date;
}

const COLUMNS = 'id, organization_id, name, scenario, created_at';

export async function insertScenario(
  db: Queryable,
  organizationId: string,
  name: string,
  scenario: WhatIfScenario,
): Promise<ScenarioRecord> {
  const [row] = await db.query<ScenarioRecord>(
    `INSERT INTO what_if_scenarios (id, organization_id, name, scenario) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [randomUUID(), organizationId, name, JSON.stringify(scenario)],
  );
  return row!;
}

/** The organization's scenarios, oldest first. */
export async function listScenarios(db: Queryable, organizationId: string): Promise<ScenarioRecord[]> {
  return db.query<ScenarioRecord>(`SELECT ${COLUMNS} FROM what_if_scenarios WHERE organization_id = $1 ORDER BY created_at, id`, [
    organizationId,
  ]);
}

export async function findScenario(db: Queryable, organizationId: string, id: string): Promise<ScenarioRecord | null> {
  const [row] = await db.query<ScenarioRecord>(`SELECT ${COLUMNS} FROM what_if_scenarios WHERE organization_id = $1 AND id = $2`, [
    organizationId,
    id,
  ]);
  return row ?? null;
}

/** Whether a scenario of the organization was deleted. */
export async function deleteScenario(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const rows = await db.query(`DELETE FROM what_if_scenarios WHERE organization_id = $1 AND id = $2 RETURNING id`, [organizationId, id]);
  return rows.length > 0;
}
