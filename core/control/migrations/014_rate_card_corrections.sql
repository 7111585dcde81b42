-- Corrections supersede (issue 23): a card posted with the identity of a current card
-- (organization, model_slug, service_tier, effective_from) replaces it. The earlier card stays as
-- history, marked with when and by which card it was superseded; who wrote each card is its
-- actor (only the admin token writes cards today; `user` with a user id is for people and roles).
ALTER TABLE rate_cards
  ADD COLUMN created_by_kind text NOT NULL DEFAULT 'admin_token' CHECK (created_by_kind IN ('admin_token', 'user')),
  ADD COLUMN created_by_user_id uuid,
  ADD COLUMN superseded_at timestamptz,
  -- Deferred: a correction marks the earlier card before it inserts the card that replaces it.
  ADD COLUMN superseded_by uuid REFERENCES rate_cards (id) DEFERRABLE INITIALLY DEFERRED,
  ADD CONSTRAINT rate_cards_actor CHECK ((created_by_kind = 'user') = (created_by_user_id IS NOT NULL)),
  ADD CONSTRAINT rate_cards_superseded CHECK ((superseded_at IS NULL) = (superseded_by IS NULL));

-- One current card per identity; any number of superseded ones.
ALTER TABLE rate_cards DROP CONSTRAINT rate_cards_identity;
CREATE UNIQUE INDEX rate_cards_current_identity
  ON rate_cards (organization_id, model_slug, service_tier, effective_from) WHERE superseded_at IS NULL;
