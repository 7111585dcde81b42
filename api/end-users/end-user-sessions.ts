// One end user's sessions: the sessions in which the end user has an event in [start, end), with
// whole-session totals (the same rows and order as /attribution-data/sessions). The session_spans
// rollup has no end-user column, so the session ids come from the range's raw events first.
import { getEndUserByExternalId } from '../../core/control/end-users.js';
import { NotFoundError } from '../../core/errors.js';
import { parseDateRange } from '../../core/time.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { listSessions } from '../sessions/sessions.service.js';
import type { SessionList } from '../sessions/sessions.types.js';
import { pageParams } from '../../core/http/paging.js';

export async function endUserSessions(
  rc: ReadContext,
  externalId: string,
  q: { start_date: string; end_date: string; limit?: number; offset?: number },
): Promise<SessionList> {
  const range = parseDateRange(q.start_date, q.end_date);
  const page = pageParams(q.limit, q.offset);
  const user = await getEndUserByExternalId(rc.db, rc.organizationId, externalId);
  if (!user) throw new NotFoundError('end user', externalId);
  const ids = await rc.lake.rows<{ session_id: string }>(
    { organizationId: rc.organizationId, range },
    `SELECT DISTINCT e.session_id FROM {{events}} e
      WHERE e.organization_id = $org AND e.end_user_id = $end_user_id AND e.session_id IS NOT NULL
        AND e.event_timestamp >= $start AND e.event_timestamp < $end`,
    { end_user_id: user.id },
  );
  if (ids.length === 0) return { sessions: [], total: 0, limit: page.limit, offset: page.offset };
  return listSessions(
    rc,
    { from: range.start, to: range.end },
    page,
    ids.map((r) => r.session_id),
  );
}
