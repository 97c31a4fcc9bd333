#!/usr/bin/env bash
# bench/statusline/run.sh: time 'mcpcost statusline' as Claude Code runs it
# (a process per redraw, its JSON on standard input), against 'ccusage
# statusline' (ccusage 20.0.24's native binary) on the same generated tree,
# in one run: 100 runs each, p50 and p99 of the wall time.
#
#   cached  mcpcost: its memo of the project's MCP definitions fresh, the
#           store as the last ingest left it; ccusage: its own cache warm
#   cold    mcpcost: the memo removed before each run (the offline audit
#           of the project's Claude Code configs runs again)
#
# Goals: cached p50 <= 50 ms, every run <= 300 ms (the budget is 250 ms).
#
#   bench/statusline/run.sh             30 sessions, about 50 MB
#   MB=200 SESSIONS=100 bench/statusline/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
mb=${MB:-50}
sessions=${SESSIONS:-30}
runs=${RUNS:-100}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}/mcpcost-bench-statusline-$sessions-$mb}
bin=$dir/bin
mkdir -p "$bin"

ccusage=$root/.cache/npm/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage
[ -x "$ccusage" ] || ccusage=$root/.cache/npm/node_modules/.bin/ccusage
[ -x "$ccusage" ] || { echo "bench: ccusage is not installed in .cache/npm (run scripts/test)" >&2; exit 1; }

go build -o "$bin/mcpcost" ./cmd/mcpcost
go build -o "$bin/gen" ./bench/ingest/gen

if [ ! -f "$dir/home/.done" ]; then
  rm -rf "$dir/home"
  "$bin/gen" -out "$dir/home" -sessions "$sessions" -mb "$mb" -seed 42 >/dev/null
  touch "$dir/home/.done"
fi
export HOME=$dir/home CLAUDE_CONFIG_DIR=$dir/home/.claude CODEX_HOME=$dir/home/.codex
export XDG_CACHE_HOME=$dir/cache XDG_DATA_HOME=$dir/data
"$bin/mcpcost" usage --by day >/dev/null 2>&1
session=$(find "$CLAUDE_CONFIG_DIR/projects" -name '*.jsonl' | sort | tail -1)
sid=$(basename "$session" .jsonl)
input=$dir/input.json
printf '{"hook_event_name":"Status","session_id":"%s","transcript_path":"%s","cwd":"%s","model":{"id":"claude-opus-4-6","display_name":"Opus 4.6"},"workspace":{"current_dir":"%s","project_dir":"%s"},"version":"2.1.97","cost":{"total_cost_usd":1.23,"total_duration_ms":60000},"output_style":{"name":"default"},"exceeds_200k_tokens":false,"context_window":{"total_input_tokens":15234,"total_output_tokens":4521,"context_window_size":200000,"used_percentage":8,"remaining_percentage":92}}\n' \
  "$sid" "$session" "$HOME" "$HOME" "$HOME" >"$input"

# times CMD...: run it $runs times with the input, print p50 and p99 in ms.
times() {
  local t0 t1 all=()
  for _ in $(seq "$runs"); do
    [ -n "${BEFORE:-}" ] && eval "$BEFORE"
    t0=$(date +%s%N)
    "$@" <"$input" >/dev/null 2>&1
    t1=$(date +%s%N)
    all+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${all[@]}" | sort -n | awk -v n="$runs" '{v[NR]=$1} END {
    p50=v[int((n+1)*0.50)]; p99=v[int(n*0.99)>0?int(n*0.99):1];
    printf "p50 %7.1f ms   p99 %7.1f ms   max %7.1f ms\n", p50/1000, p99/1000, v[n]/1000 }'
}

echo "mcpcost statusline: $("$bin/mcpcost" statusline <"$input")"
printf '%-34s ' "mcpcost statusline, cached"; times "$bin/mcpcost" statusline
printf '%-34s ' "mcpcost statusline, cold"; BEFORE='rm -rf "$XDG_CACHE_HOME/mcpcost/statusline"' times "$bin/mcpcost" statusline
"$ccusage" statusline --offline <"$input" >/dev/null 2>&1 || true
printf '%-34s ' "ccusage statusline, cached"; times "$ccusage" statusline --offline
