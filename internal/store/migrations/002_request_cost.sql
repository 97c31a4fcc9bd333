-- The cost Claude Code recorded in a line (costUSD), in USD; NULL when the
-- line recorded none. Reports use it in ccusage's auto and display modes.
ALTER TABLE requests ADD COLUMN cost_usd REAL;
