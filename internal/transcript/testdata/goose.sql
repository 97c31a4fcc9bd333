-- Goose 1.35's sessions.db (schema version 13), rows as Goose writes them,
-- and rows a reader must survive.
CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER, accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER, accumulated_cost REAL, schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT, goose_mode TEXT NOT NULL DEFAULT 'auto', archived_at TIMESTAMP, project_id TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
INSERT INTO sessions (id, working_dir, created_at, total_tokens, input_tokens, output_tokens, accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens, provider_name, model_config_json) VALUES
 ('20261101_1', '/home/u/a', '2026-11-01 10:00:00', 20, 10, 5, 170, 100, 50, 'anthropic', '{"model_name":"claude-sonnet-4-5","context_limit":null}'),
 ('20261101_2', '/home/u/a', '2026-11-01 23:30:00', 20, 10, 5, NULL, NULL, NULL, 'openai', '{"model_name":"gpt-5"}'),
 ('20261102_1', '/home/u/b', '2026-11-02T08:00:00Z', NULL, NULL, NULL, 300, 200, NULL, 'openai', '{"model_name":"gpt-5"}'),
 ('20261102_2', '/home/u/b', '2026-11-02 08:00:00', 5, 5, 0, 50, 100, 10, 'openai', '{"model_name":"gpt-5"}'),
 ('20261102_3', '/home/u/b', '2026-11-02 08:00:00', 5, 5, 0, 50, 40, 10, 'openai', 'not json'),
 ('20261102_4', '/home/u/b', '2026-11-02 08:00:00', 5, 5, 0, 0, 0, 0, 'openai', '{"model_name":"gpt-5"}'),
 ('20261102_5', '/home/u/b', 'garbage', 5, 5, 0, 50, 40, 10, 'openai', '{"model_name":"gpt-5"}'),
 ('20261102_6', '/home/u/b', '2026-11-02 08:00:00', -5, 10, 5, NULL, NULL, NULL, 'openai', '{"model_name":"gpt-5"}'),
 ('20261102_7', '/home/u/b', 1793700000, '12', '3', '4', NULL, NULL, NULL, 'openai', '{"model_name":"gpt-5"}'),
 ('20261102_8', '/home/u/b', '2026-11-02 08:00:00', NULL, NULL, NULL, NULL, NULL, NULL, 'openai', '{"model_name":"gpt-5"}'),
 ('20261102_9', '/home/u/b', '2026-11-02 08:00:00', 9007199254740993, 1, 1, NULL, NULL, NULL, 'openai', '{"model_name":"gpt-5"}');
INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) VALUES
 ('m1', '20261101_1', 'user', '[{"type":"text","text":"hello"}]', 1793527200),
 ('m2', '20261101_1', 'assistant', '[{"type":"toolRequest","id":"call_1","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls"}}}},{"type":"toolRequest","id":"call_2","toolCall":{"status":"success","value":{"name":"write","arguments":null}},"_meta":{"goose_extension":"developer"}},{"type":"toolRequest","id":"call_3","toolCall":{"status":"error","error":"could not parse the arguments"}},{"type":"toolRequest","id":"call_4","toolCall":{"Ok":{"name":"todo_write","arguments":{}}}}]', 1793527210),
 ('m3', '20261101_1', 'user', '[{"type":"toolResponse","id":"call_1","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"a.txt"},{"type":"image","data":"","mimeType":"image/png"}],"isError":false}}},{"type":"toolResponse","id":"call_2","toolResult":{"status":"success","value":[{"type":"text","text":"written"}]}},{"type":"toolResponse","id":"call_4","toolResult":{"status":"error","error":"denied"}},{"type":"toolResponse","id":"call_5","toolResult":{"Err":{"message":"tool not found"}}},{"type":"toolResponse","id":"call_6","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"bad input"}],"isError":true}}}]', 1793527220),
 ('m4', '20261101_1', 'assistant', '[{"type":"toolRequest","id":"call_7"', 1793527230),
 ('m5', '20261101_1', 'assistant', '[{"type":"toolRequest","id":"call_8","toolCall":{"status":"success","value":{"name":"github__search","arguments":{}}}}]', 'never');
