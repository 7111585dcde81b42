// Admin: which OTLP resource or span attributes an organization keeps as usage-event metadata
// (e.g. deployment.environment → env). Replaced whole by PUT; binds the next export of this
// process, other ingest processes within 1 s.
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Put, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import { appContext } from '../core/app-context.js';
import { requireOrganization } from '../core/control/organizations.js';
import { ValidationError } from '../core/errors.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import { textFault } from '../core/text.js';
import { forgetAttributeMappings, listAttributeMappings, replaceAttributeMappings } from './attribute-mappings.store.js';

export interface OtlpAttributeMappingItem {
  /**
   * A resource or span attribute name as the instrumentation sends it (span attributes win).
   * @minLength 1 must not be empty
   * @maxLength 255 must be at most 255 characters
   */
  attribute: string;
  /**
   * The metadata key it is stored under: snake_case, at most 64 characters.
   * @pattern ^[a-z][a-z0-9_]*$ must be snake_case: a lowercase letter, then lowercase letters, digits or _
   * @maxLength 64 must be at most 64 characters
   */
  metadata_key: string;
}

export interface OtlpAttributeMappings {
  /** @maxItems 64 at most 64 mappings (the metadata key limit of an event) */
  mappings: OtlpAttributeMappingItem[];
}

@Route('admin/organizations')
@Tags('Admin: OTLP')
@Security('admin')
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token')
@Response<ErrorEnvelope>(404, 'Unknown organization')
export class OtlpAttributeMappingsController extends Controller {
  /**
   * Replaces the organization's OTLP attribute → metadata key mappings.
   * @summary Replace OTLP attribute mappings
   */
  @Put('{organizationId}/otlp-attribute-mappings')
  public async putOtlpAttributeMappings(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: OtlpAttributeMappings,
  ): Promise<OtlpAttributeMappings> {
    const seen = new Set<string>();
    body.mappings.forEach((m, i) => {
      const fault = textFault(m.attribute);
      if (fault) throw new ValidationError(`mappings[${i}].attribute`, fault);
      if (seen.has(m.attribute)) throw new ValidationError(`mappings[${i}].attribute`, `${m.attribute} is mapped twice`);
      seen.add(m.attribute);
    });
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    await replaceAttributeMappings(db, organizationId, body.mappings);
    forgetAttributeMappings(organizationId);
    return { mappings: await listAttributeMappings(db, organizationId) };
  }

  /**
   * The organization's OTLP attribute → metadata key mappings, by attribute.
   * @summary List OTLP attribute mappings
   */
  @Get('{organizationId}/otlp-attribute-mappings')
  public async getOtlpAttributeMappings(@Request() req: ExRequest, @Path() organizationId: string): Promise<OtlpAttributeMappings> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    return { mappings: await listAttributeMappings(db, organizationId) };
  }
}
