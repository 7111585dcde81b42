// Admin: custom dimension definitions (metadata keys with a value type; required ones are
// enforced at ingestion). Read back by API keys through GET /dimension-data/definitions.
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext, service } from '../../core/app-context.js';
import { NotFoundError } from '../../core/errors.js';
import { type DimensionRollupProgress, duckLakeRollupProgress } from '../lake/dimension-rollup-read.js';
import { ingestSettingsChanged } from './ingest-settings.js';
import { createDimension, getDimension, listDimensions } from '../../core/control/dimensions.js';
import { requireOrganization } from '../../core/control/organizations.js';
import { auditChange } from '../../core/http/audit-trail.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { requireText } from '../../core/http/input.js';
import { dimensionView, type DimensionDefinitionList, type DimensionDefinitionView } from './admin-views.js';

export interface CreateDimensionBody {
  /**
   * The metadata key: snake_case (`^[a-z][a-z0-9_]*$`), at most 64 characters, case-sensitive.
   * @pattern ^[a-z][a-z0-9_]*$ must be snake_case: a lowercase letter, then lowercase letters, digits or _
   * @maxLength 64 must be at most 64 characters
   */
  key: string;
  /**
   * Display name.
   * @minLength 1 must not be empty
   * @maxLength 200 must be at most 200 characters
   */
  name: string;
  /** Only `number` dimensions can be aggregated numerically (and then require finite numbers). */
  value_type: 'string' | 'number';
  /** When true, ingestion rejects events whose metadata lacks the key. Default false. */
  is_required?: boolean;
  /** @maxLength 1000 must be at most 1000 characters */
  description?: string;
}

@Route('admin/organizations')
@Tags('Admin: dimensions')
@Security('admin', ['organization:admin'])
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token (or session)')
@Response<ErrorEnvelope>(403, 'A session of a person who is not an owner or admin of this organization, or without X-CSRF-Token on a write')
@Response<ErrorEnvelope>(404, 'Unknown organization')
export class DimensionsController extends Controller {
  /**
   * Defines a dimension: a metadata key with a display name and a value type (only `number`
   * dimensions aggregate numerically). With `is_required`, ingestion rejects events whose metadata
   * lacks the key; the processor rolls the dimension up from then on and backfills earlier days.
   * @summary Define a dimension
   */
  @Post('{organizationId}/dimensions')
  @SuccessResponse(201, 'Created')
  @Response<ErrorEnvelope>(400, 'Invalid body; error.details.field names the field')
  @Response<ErrorEnvelope>(409, 'The key is already defined')
  public async createDimension(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: CreateDimensionBody,
  ): Promise<DimensionDefinitionView> {
    const input = {
      key: body.key,
      name: requireText('name', body.name, 200),
      valueType: body.value_type,
      isRequired: body.is_required ?? false,
      description: body.description === undefined ? null : body.description,
    };
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const dimension = await createDimension(db, organizationId, input);
    ingestSettingsChanged(req, organizationId);
    const view = dimensionView(dimension);
    await auditChange(req, { organizationId, action: 'dimension.created', after: view });
    this.setStatus(201);
    return view;
  }

  /**
   * How far the lake's rollup of a dimension reaches: days with events, and those whose every
   * events file the processor rolled up for it (flushes after the definition, and the backfill of
   * earlier days, which runs on its own once the dimension is defined). Dimension endpoints read
   * covered days from the rollup and the others from raw events, with the same answers.
   * @summary Check a dimension's rollup coverage
   */
  @Get('{organizationId}/dimensions/{key}/rollup')
  @Response<ErrorEnvelope>(404, 'Unknown organization or dimension')
  public async getDimensionRollup(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Path() key: string,
  ): Promise<DimensionRollupProgress> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const dimension = await getDimension(db, organizationId, key);
    if (!dimension) throw new NotFoundError('dimension', key);
    return duckLakeRollupProgress(service(req, 'lakeQuery'), dimension);
  }

  /**
   * The organization's dimension definitions, by key.
   * @summary List dimensions
   */
  @Get('{organizationId}/dimensions')
  public async listDimensions(@Request() req: ExRequest, @Path() organizationId: string): Promise<DimensionDefinitionList> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const dimensions = await listDimensions(db, organizationId);
    return { dimensions: dimensions.map(dimensionView), total: dimensions.length };
  }
}
