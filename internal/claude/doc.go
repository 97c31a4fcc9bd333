// Package claude computes what Claude actually receives from MCP servers, beside
// the headline methodology number (o200k_base over JSON.stringify of the
// server's tools array), which it never replaces:
//
//   - [RequestShape]: the Anthropic request tools array as Claude Code sends
//     MCP tools (name prefixed mcp__<server>__<tool>, description cut to
//     2 KB, input_schema; nothing else), its canonical JSON and o200k_base
//     count, per tool too;
//   - [SessionStart]: what a deferring client loads at session start (the
//     tool names plus the server instructions), method deferred-load/v1, the
//     figure mcp-context-cost publishes as "session start";
//   - [Overheads], [OverheadFor]: the per-model tool-use system prompt
//     Anthropic adds to any request that carries tools, as data with its
//     source;
//   - [Client]: Anthropic's POST /v1/messages/count_tokens, to count the
//     request shape with Claude's own tokenizer;
//   - [Published]: mcp-context-cost's published Claude and session-start
//     figures, given only for a capture whose canonical SHA-256 matches
//     exactly.
//
// [Describe] puts these together for one server (a [Report], JSON schema
// mcpcost.claude/v1), and [Report.Count] adds the count_tokens figure.
//
// Every number here is a different number from the headline: the headline
// counts every field a server sends with o200k_base; these count what one
// client forwards, or what Claude's tokenizer makes of it.
package claude
