-- Custom dimension definitions and the organization's end users (created on the first event that
-- names them; id = UUIDv5 of organization + external id, computed by the application).

CREATE TABLE dimension_definitions (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id),
  name            text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 255),
  key             text NOT NULL CHECK (key ~ '^[A-Za-z_][A-Za-z0-9_]*$' AND length(key) <= 255),
  description     text,
  value_type      text NOT NULL CHECK (value_type IN ('string', 'number')),
  is_required     boolean NOT NULL DEFAULT false,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, key)
);

CREATE TABLE end_users (
  id              uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  external_id     text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 255),
  -- The revenue source's customer name when known; readers fall back to external_id.
  name            text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, external_id)
);
