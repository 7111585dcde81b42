-- Invitations can be revoked by the organization's owners and admins (issue 25): a revoked
-- invitation is never accepted. people/ owns the SQL.
ALTER TABLE invitations ADD COLUMN revoked_at timestamptz;
