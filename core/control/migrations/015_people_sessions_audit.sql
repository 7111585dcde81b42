-- People (issue 25): persons with an argon2id password, their roles in organizations, invitations
-- (token stored as SHA-256, single use, expiring), sessions (token stored as SHA-256), sign-in
-- failures per account and per address (the lockout), and the audit trail. people/ owns the SQL.

CREATE TABLE people (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email         text NOT NULL UNIQUE CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
  password_hash text NOT NULL CHECK (password_hash LIKE '$argon2id$%'),
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE memberships (
  organization_id uuid NOT NULL REFERENCES organizations (id),
  person_id       uuid NOT NULL REFERENCES people (id),
  role            text NOT NULL CHECK (role IN ('owner', 'admin', 'analyst', 'finance', 'viewer')),
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, person_id)
);
CREATE INDEX memberships_by_person ON memberships (person_id);

CREATE TABLE invitations (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id),
  email           text NOT NULL CHECK (email = lower(email)),
  role            text NOT NULL CHECK (role IN ('owner', 'admin', 'analyst', 'finance', 'viewer')),
  token_hash      text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  expires_at      timestamptz NOT NULL,
  accepted_at     timestamptz,
  accepted_by     uuid REFERENCES people (id),
  created_at      timestamptz NOT NULL DEFAULT now(),
  CHECK ((accepted_at IS NULL) = (accepted_by IS NULL))
);
CREATE INDEX invitations_by_org ON invitations (organization_id, created_at);

CREATE TABLE person_sessions (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  person_id    uuid NOT NULL REFERENCES people (id),
  token_hash   text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  address      text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL
);
CREATE INDEX person_sessions_by_person ON person_sessions (person_id);

-- subject: 'account:<email>' or 'address:<ip>'; failures restart after an hour without one.
CREATE TABLE sign_in_failures (
  subject         text PRIMARY KEY,
  failures        integer NOT NULL CHECK (failures > 0),
  last_failure_at timestamptz NOT NULL,
  locked_until    timestamptz
);

-- Who did what, when, from where. organization_id is null for a person's own events (sign-in,
-- sign-out), which their organizations' owners and admins see through subject_person_id.
CREATE TABLE audit_events (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  occurred_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  organization_id   uuid REFERENCES organizations (id),
  action            text NOT NULL CHECK (length(action) BETWEEN 1 AND 100),
  actor_kind        text NOT NULL CHECK (actor_kind IN ('person', 'api_key', 'admin_token', 'anonymous')),
  actor_id          text,
  subject_person_id uuid,
  address           text,
  details           jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_events_by_org ON audit_events (organization_id, occurred_at);
CREATE INDEX audit_events_by_subject ON audit_events (subject_person_id, occurred_at);
