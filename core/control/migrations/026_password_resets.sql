-- Password resets (issue 25): a single-use token that expires, stored only as its SHA-256 (like
-- invitations). Confirming one sets the password, marks every open reset of the person used and
-- ends their sessions. people/ owns the SQL.

CREATE TABLE password_resets (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  person_id  uuid NOT NULL REFERENCES people (id),
  token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX password_resets_by_person ON password_resets (person_id, created_at);
