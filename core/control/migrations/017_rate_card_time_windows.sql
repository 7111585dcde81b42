-- Time-of-day prices (issue 26): a token card may carry windows in UTC, each with its own rates
-- ([{name, days?, start_utc, end_utc, <rate fields>}], rates as decimal strings); an event whose
-- timestamp falls in one is priced at its rates. Empty: one price at every hour.
ALTER TABLE rate_cards ADD COLUMN time_of_day_windows jsonb NOT NULL DEFAULT '[]'::jsonb;
