// The organization's audit trail (GET /v1/audit-events), for its owners and admins: newest first,
// 50 a page, in the picked date range, filtered by action, kind of actor and person (done by or
// to them; the actions on screen are offered as suggestions). People are shown by their email when
// they are members now, else by their id.
import { useState } from 'react';
import { useApi } from '../../api/queries.js';
import type { ActorKind, AuditEvent, AuditEventList, MemberList } from '../../api/types.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { Pager } from '../../components/Pager.js';
import { QueryState } from '../../components/QueryState.js';
import { dateTime } from '../../format/dates.js';
import { rangeQuery, useDateRange } from '../../range/date-range.js';

const PAGE = 50;
const ACTOR_KINDS: ReadonlyArray<readonly [ActorKind, string]> = [
  ['person', 'a person'],
  ['api_key', 'an API key'],
  ['admin_token', 'the admin token'],
  ['anonymous', 'anonymous'],
];

interface Filters {
  action: string;
  actorKind: string;
  personId: string;
}

export function AuditPage() {
  const range = useDateRange();
  const [filters, setFilters] = useState<Filters>({ action: '', actorKind: '', personId: '' });
  const [offset, setOffset] = useState(0);
  const members = useApi<MemberList>('/members');
  const events = useApi<AuditEventList>('/audit-events', {
    ...rangeQuery(range),
    action: filters.action.trim() || undefined,
    actor_kind: filters.actorKind || undefined,
    person_id: filters.personId || undefined,
    limit: PAGE,
    offset,
  });
  const emails = new Map((members.data?.members ?? []).map((m) => [m.person_id, m.email]));
  const person = (id: string | null) => (id === null ? '—' : (emails.get(id) ?? id));
  const filter = (change: Partial<Filters>) => {
    setFilters({ ...filters, ...change });
    setOffset(0);
  };
  const columns: Column<AuditEvent>[] = [
    { id: 'when', header: 'When', value: (e) => e.occurred_at, render: (e) => dateTime(e.occurred_at) },
    { id: 'action', header: 'Action', value: (e) => e.action, render: (e) => <code>{e.action}</code> },
    {
      id: 'actor',
      header: 'Done by',
      value: (e) => (e.actor.kind === 'person' ? person(e.actor.id) : e.actor.kind),
      render: (e) =>
        e.actor.kind === 'person' ? (
          person(e.actor.id)
        ) : (
          <span className="muted">
            {ACTOR_KINDS.find(([k]) => k === e.actor.kind)?.[1]}
            {e.actor.id ? ` ${e.actor.id}` : ''}
          </span>
        ),
    },
    { id: 'subject', header: 'Concerning', value: (e) => person(e.subject_person_id) },
    { id: 'address', header: 'From address', value: (e) => e.address ?? '—' },
    {
      id: 'details',
      header: 'What changed',
      value: (e) => JSON.stringify(e.details),
      render: (e) => <code className="meta">{JSON.stringify(e.details)}</code>,
    },
  ];
  return (
    <div className="page" data-page="audit">
      <h1>Audit trail</h1>
      <form className="inline-form" data-form="audit-filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Action
          <input
            name="action"
            list="audit-actions"
            placeholder="any"
            value={filters.action}
            onChange={(e) => filter({ action: e.target.value })}
          />
          <datalist id="audit-actions">
            {[...new Set((events.data?.audit_events ?? []).map((e) => e.action))].map((a) => (
              <option key={a} value={a} />
            ))}
          </datalist>
        </label>
        <label>
          Done by
          <select name="actor_kind" value={filters.actorKind} onChange={(e) => filter({ actorKind: e.target.value })}>
            <option value="">anyone</option>
            {ACTOR_KINDS.map(([kind, label]) => (
              <option key={kind} value={kind}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Person
          <select name="person_id" value={filters.personId} onChange={(e) => filter({ personId: e.target.value })}>
            <option value="">everyone</option>
            {(members.data?.members ?? []).map((m) => (
              <option key={m.person_id} value={m.person_id}>
                {m.email}
              </option>
            ))}
          </select>
        </label>
      </form>
      <QueryState query={events} label="audit events">
        {(d) => (
          <>
            <DataTable
              name="audit-events"
              columns={columns}
              rows={d.audit_events}
              rowTestId={(e) => e.audit_event_id}
              empty="No audit events in this range with these filters."
            />
            <Pager offset={offset} limit={PAGE} total={d.total} onOffset={setOffset} />
          </>
        )}
      </QueryState>
    </div>
  );
}
