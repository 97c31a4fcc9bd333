package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// The rollups (migrations 006 and 010) are kept by triggers, row by row, except
// while meta holds 'rollups_deferred': a first ingest into an empty store
// sets it (its triggers then do nothing), and fills the rollups from the
// rows in one go at its end, which costs less than a trigger a row. The
// migration that adds the rollups sets it too, for the rows stored before.
// Open fills them in when it finds the key (an interrupted first ingest,
// a migrated store), and the queries read the rows, not the rollups,
// while it is set.

// fillRollups are the rollups of every row (a cost outside [0,
// transcript.MaxCostUSD], stored before ingest checked it, is none), added row by row as the
// triggers add them (so that a sum past an int64 becomes a real, as
// theirs does, rather than an error).
const fillRollups = `DELETE FROM request_rollup;
DELETE FROM tool_rollup;
DELETE FROM tool_use_rollup;
INSERT INTO request_rollup
SELECT r.ts - ((r.ts % 900000) + 900000) % 900000, r.source, r.session_id,
	coalesce((SELECT f.agent_id FROM files f WHERE f.id = r.file_id AND f.session_id = '' AND f.agent_id <> ''), ''),
	r.model, r.project, r.speed, coalesce(r.cost_usd >= 0 AND r.cost_usd <= 100000, 0),
	CASE WHEN r.input + r.cache_write_5m + r.cache_write_1h + r.cache_read > 272000 THEN 2
		WHEN r.input + r.cache_write_5m + r.cache_write_1h + r.cache_read > 200000 THEN 1 ELSE 0 END,
	1, r.input + r.output + r.cache_write_5m + r.cache_write_1h + r.cache_read > 0,
	r.input, r.output, r.cache_write_5m, r.cache_write_1h, r.cache_read, r.reasoning,
	CASE WHEN r.cost_usd >= 0 AND r.cost_usd <= 100000 THEN r.cost_usd ELSE 0 END
FROM requests r
WHERE r.input >= 0 AND r.output >= 0 AND r.cache_write_5m >= 0 AND r.cache_write_1h >= 0 AND r.cache_read >= 0
ORDER BY r.id
ON CONFLICT (bucket, source, session_id, agent_file, model, project, speed, recorded, band) DO UPDATE SET
	requests = requests + 1, nonzero = nonzero + excluded.nonzero,
	input = input + excluded.input, output = output + excluded.output,
	cache_write_5m = cache_write_5m + excluded.cache_write_5m, cache_write_1h = cache_write_1h + excluded.cache_write_1h,
	cache_read = cache_read + excluded.cache_read, reasoning = reasoning + excluded.reasoning,
	cost_usd = cost_usd + excluded.cost_usd;

INSERT INTO tool_rollup
SELECT coalesce(t.call_ts, t.result_ts) - ((coalesce(t.call_ts, t.result_ts) % 900000) + 900000) % 900000,
	t.source, t.session_id,
	coalesce((SELECT f.agent_id FROM files f WHERE f.id = coalesce(t.call_file_id, t.result_file_id) AND f.session_id = '' AND f.agent_id <> ''), ''),
	coalesce(t.project, ''), coalesce(t.server, '') <> '',
	1, coalesce(t.is_error, 0) <> 0, coalesce(t.result_tokens, 0)
FROM tool_calls t
WHERE coalesce(t.call_ts, t.result_ts) IS NOT NULL AND t.lost = 0
ORDER BY t.id
ON CONFLICT (bucket, source, session_id, agent_file, project, mcp) DO UPDATE SET
	calls = calls + 1, errors = errors + excluded.errors, result_tokens = result_tokens + excluded.result_tokens;

INSERT INTO tool_use_rollup
SELECT coalesce(t.call_ts, t.result_ts) - ((coalesce(t.call_ts, t.result_ts) % 900000) + 900000) % 900000,
	t.source, t.session_id, coalesce(t.project, ''), coalesce(t.server, ''),
	CASE WHEN t.call_ts IS NULL THEN '(unknown tool)' WHEN coalesce(t.tool, '') <> '' THEN t.tool ELSE coalesce(t.name, '') END, coalesce(t.plugin, ''),
	1, coalesce(t.is_error, 0) <> 0, t.result_ts IS NULL, coalesce(t.result_tokens, 0), coalesce(t.result_tokens, 0),
	coalesce(t.estimated_tokens, 0), coalesce(t.non_text, 0)
FROM tool_calls t
WHERE coalesce(t.call_ts, t.result_ts) IS NOT NULL AND t.lost = 0
ORDER BY t.id
ON CONFLICT (bucket, source, session_id, project, server, tool, plugin) DO UPDATE SET
	calls = calls + 1, errors = errors + excluded.errors, unanswered = unanswered + excluded.unanswered,
	result_tokens = result_tokens + excluded.result_tokens, max_result = max(max_result, excluded.max_result),
	estimated_tokens = estimated_tokens + excluded.estimated_tokens, non_text = non_text + excluded.non_text;
DELETE FROM meta WHERE key = 'rollups_deferred';`

// The sub-agent file of a row, in fillRollups: only an older-style
// sub-agent file (one that names no session) has one.
const (
	requestAgentFile = `coalesce((SELECT f.agent_id FROM files f WHERE f.id = r.file_id AND f.session_id = '' AND f.agent_id <> ''), '')`
	toolAgentFile    = `coalesce((SELECT f.agent_id FROM files f WHERE f.id = coalesce(t.call_file_id, t.result_file_id) AND f.session_id = '' AND f.agent_id <> ''), '')`
)

// fillRollupsNoAgentFiles is fillRollups for a store that has no
// older-style sub-agent file, where every row's agent_file is the empty
// string: it spares a look-up in files a row (a tenth of the fill).
var fillRollupsNoAgentFiles = strings.NewReplacer(requestAgentFile, "''", toolAgentFile, "''").Replace(fillRollups)

// deferRollups leaves the triggers idle until fillDeferredRollups.
func deferRollups(tx *sql.Tx) error {
	_, err := tx.Exec(`INSERT OR IGNORE INTO meta (key, value) VALUES ('rollups_deferred', x'01')`)
	return err
}

// rollupsDeferred reports whether the rollups wait for
// fillDeferredRollups, and do not answer queries.
func (s *Store) rollupsDeferred(ctx context.Context) (bool, error) {
	var deferred bool
	if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred')`).Scan(&deferred); err != nil {
		return false, fmt.Errorf("reading the store's rollups: %w", err)
	}
	return deferred, nil
}

// fillDeferredRollups fills the rollups from the rows, when they were
// deferred, and sets the triggers to work again (creating those a first
// ingest dropped), in one transaction.
func (s *Store) fillDeferredRollups(ctx context.Context) error {
	var pending bool
	if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM meta WHERE key IN ('rollups_deferred', 'dropped_triggers'))`).Scan(&pending); err != nil {
		return fmt.Errorf("reading the store's rollups: %w", err)
	}
	if !pending {
		return nil
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := restoreTriggers(tx); err != nil {
			return err
		}
		var deferred, agentFiles bool
		if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred'),
			EXISTS (SELECT 1 FROM files WHERE session_id = '' AND agent_id <> '')`).Scan(&deferred, &agentFiles); err != nil || !deferred {
			return err
		}
		q := fillRollupsNoAgentFiles
		if agentFiles {
			q = fillRollups
		}
		_, err := tx.Exec(q)
		return err
	})
	if err != nil {
		return fmt.Errorf("filling the store's rollups: %w", err)
	}
	return nil
}
