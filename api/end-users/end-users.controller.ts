// GET /v1/end-users: the organization's end users with both identifiers, so a client holding the
// internal end_user_id of a cost or margin row can call /end-user-costs/{externalId}/… (the
// console's customer drill-down). End users exist from the first event that names them.
import type { TextParam } from '../../core/http/params.js';
import type { Request as ExRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import { getEndUser, listEndUsers, type EndUser } from '../../core/control/end-users.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { readContext } from '../../core/http/read-context.js';

export interface EndUserEntry {
  /** Internal UUID (the end_user_id of cost and margin rows). */
  end_user_id: string;
  /** The `user_id` sent on events (the externalId of /end-user-costs). */
  external_id: string;
  /** The revenue source's customer name when known, else the external id. */
  end_user_name: string;
  /** When the first event named this end user (ISO 8601 UTC). */
  created_at: string;
}

export interface EndUserDirectory {
  /** Every end user of the organization, by external_id. */
  end_users: EndUserEntry[];
  total: number;
}

@Route('end-users')
@Tags('End-user costs')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class EndUsersController extends Controller {
  /**
   * Every end user of the organization with its internal and external identifiers, or only the
   * one with `end_user_id` (none when it is not one of yours).
   * @summary List end users
   * @param end_user_id An internal end-user id (as cost and margin rows carry it).
   */
  @Get()
  @Response<ErrorEnvelope>(400, 'end_user_id is not well-formed Unicode without NUL')
  public async listEndUsers(@Request() req: ExRequest, @Query() end_user_id?: TextParam): Promise<EndUserDirectory> {
    const rc = readContext(req);
    let users: EndUser[];
    if (end_user_id === undefined) users = await listEndUsers(rc.db, rc.organizationId);
    else {
      const one = await getEndUser(rc.db, rc.organizationId, end_user_id);
      users = one ? [one] : [];
    }
    return {
      end_users: users.map((u) => ({
        end_user_id: u.id,
        external_id: u.externalId,
        end_user_name: u.name ?? u.externalId,
        created_at: u.createdAt.toISOString(),
      })),
      total: users.length,
    };
  }
}
