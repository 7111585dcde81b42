// /v1/what-if/scenarios: what-if scenarios saved under a name per organization, listed, read,
// deleted and run over a range (the same answer as POST /v1/what-if). Saving changes only this
// table; running reads the lake as POST /v1/what-if does.
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { authOf } from '../../core/http/authentication.js';
import { requireText } from '../../core/http/input.js';
import { readContext, type ReadContext } from '../../core/http/read-context.js';
import { NotFoundError } from '../../core/errors.js';
import { isUuid } from '../../core/ids.js';
import { checkedScenario, simulateWhatIf } from './what-if.service.js';
import { deleteScenario, findScenario, insertScenario, listScenarios, type ScenarioRecord } from './what-if-scenarios.store.js';
import type { WhatIfRange, WhatIfResult, WhatIfScenarioBody, WhatIfScenarioList, WhatIfScenarioView } from './what-if.types.js';

function view(r: ScenarioRecord): WhatIfScenarioView {
  return { id: r.id, name: r.name, scenario: r.scenario, created_at: new Date(r.created_at).toISOString() };
}

/** The organization's scenario, or 404 (also for an id that is not a UUID, or another organization's). */
async function scenarioOf(rc: ReadContext, id: string): Promise<ScenarioRecord> {
  const found = isUuid(id) ? await findScenario(rc.db, rc.organizationId, id.toLowerCase()) : null;
  if (found === null) throw new NotFoundError('what-if scenario', id);
  return found;
}

@Route('what-if/scenarios')
@Tags('What-if')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class WhatIfScenariosController extends Controller {
  /**
   * Saves a scenario (scope filters and changes, as POST /v1/what-if takes them without a range)
   * under a name, checked as a run would check it. Only the organization's keys see it.
   * @summary Save a what-if scenario
   */
  @Post()
  @SuccessResponse(201, 'The saved scenario')
  @Response<ErrorEnvelope>(400, 'Bad or missing fields (error.details.field names it, inside scenario)')
  public async saveScenario(@Request() req: ExRequest, @Body() body: WhatIfScenarioBody): Promise<WhatIfScenarioView> {
    const rc = readContext(req);
    const name = requireText('name', body.name, 200);
    const scenario = checkedScenario(rc, body.scenario);
    this.setStatus(201);
    return view(await insertScenario(rc.db, rc.organizationId, name, scenario));
  }

  /**
   * The organization's saved scenarios, oldest first.
   * @summary List saved what-if scenarios
   */
  @Get()
  public async listScenarios(@Request() req: ExRequest): Promise<WhatIfScenarioList> {
    const rc = readContext(req);
    return { items: (await listScenarios(rc.db, rc.organizationId)).map(view) };
  }

  /**
   * One saved scenario of the organization.
   * @summary Retrieve a saved what-if scenario
   */
  @Get('{scenarioId}')
  @Response<ErrorEnvelope>(404, 'No such scenario in this organization')
  public async getScenario(@Request() req: ExRequest, @Path() scenarioId: string): Promise<WhatIfScenarioView> {
    return view(await scenarioOf(readContext(req), scenarioId));
  }

  /**
   * Deletes a saved scenario of the organization.
   * @summary Delete a saved what-if scenario
   */
  @Delete('{scenarioId}')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorEnvelope>(404, 'No such scenario in this organization')
  public async deleteScenario(@Request() req: ExRequest, @Path() scenarioId: string): Promise<void> {
    const rc = readContext(req);
    if (!isUuid(scenarioId) || !(await deleteScenario(rc.db, rc.organizationId, scenarioId.toLowerCase()))) {
      throw new NotFoundError('what-if scenario', scenarioId);
    }
    this.setStatus(204);
  }

  /**
   * Runs a saved scenario over a range: the same answer as POST /v1/what-if with the scenario and
   * this range (margins need revenue:read too). Compare two scenarios by running both over one range.
   * @summary Run a saved what-if scenario
   */
  @Post('{scenarioId}/run')
  @SuccessResponse(200, 'The actual and simulated figures')
  @Response<ErrorEnvelope>(400, 'Bad or missing start_date or end_date; start_date not before end_date')
  @Response<ErrorEnvelope>(404, 'No such scenario in this organization')
  @Response<ErrorEnvelope>(422, 'DATE_RANGE_TOO_LARGE, or NO_RATE_CARD as POST /v1/what-if answers it')
  public async runScenario(@Request() req: ExRequest, @Path() scenarioId: string, @Body() body: WhatIfRange): Promise<WhatIfResult> {
    const rc = readContext(req);
    const saved = await scenarioOf(rc, scenarioId);
    this.setStatus(200);
    return simulateWhatIf(
      rc,
      { ...saved.scenario, start_date: body.start_date, end_date: body.end_date },
      authOf(req).scopes.includes('revenue:read'),
    );
  }
}
