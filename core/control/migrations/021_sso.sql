-- Single sign-on (issue 25): one OpenID Connect provider per organization (client secret sealed
-- under the master key, never in clear), and the sign-ins under way (state, nonce and PKCE
-- verifier kept server-side for ten minutes, each state usable once). people/ owns the SQL.

CREATE TABLE sso_configurations (
  organization_id      uuid PRIMARY KEY REFERENCES organizations (id),
  issuer               text NOT NULL,
  client_id            text NOT NULL,
  client_secret_sealed text NOT NULL,
  allowed_domains      text[] NOT NULL CHECK (cardinality(allowed_domains) > 0),
  default_role         text NOT NULL CHECK (default_role IN ('owner', 'admin', 'analyst', 'finance', 'viewer')),
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sso_attempts (
  state_hash      text PRIMARY KEY CHECK (state_hash ~ '^[0-9a-f]{64}$'),
  organization_id uuid NOT NULL REFERENCES organizations (id),
  nonce           text NOT NULL,
  code_verifier   text NOT NULL,
  expires_at      timestamptz NOT NULL
);
