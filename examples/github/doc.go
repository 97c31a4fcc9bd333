// Package github holds ready GitHub Actions workflows for mcpcost's CI
// gates, and the test that keeps them working: mcp-config-gate.yml gates a
// repository's MCP config (audit the base branch, audit the pull request
// against it, comment, fail on the gate), server-author-gate.yml gates an
// MCP server's own pull requests (measure both, the per-tool diff, the
// gate, a badge on the default branch), weekly-sweep.yml re-sweeps one shard
// of a servers.yaml a week and commits what it publishes.
package github
