-- Saved what-if scenarios (issue 27): a name and the scenario as POST /v1/what-if takes it without
-- its range (scope filters and changes, checked before saving), per organization. Read and run
-- only by the organization's own keys; running one reads the lake, it never changes a row here.

CREATE TABLE what_if_scenarios (
  id              uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  name            text NOT NULL,
  scenario        jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX what_if_scenarios_organization ON what_if_scenarios (organization_id, created_at);
