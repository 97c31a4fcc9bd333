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
# Each row also gives the CPU time a run takes, which a loaded machine
# does not change much.
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

# to_ms VAR TIME: sets VAR to TIME ("1m2.345s", as times prints it) in
# milliseconds.
to_ms() {
  local t=${2%s}
  local sec=${t#*m}
  printf -v "$1" '%d' $(( ${t%%m*} * 60000 + 10#${sec/./} ))
}

# cpu: sets cpu_ms to the user and system time of the shell's finished
# children, forking nothing (bash's times builtin, read back with read),
# so that only the runs themselves are counted.
cpu() {
  local shell child_user child_sys u s
  builtin times >"$dir/times"
  { read -r shell; read -r child_user child_sys; } <"$dir/times"
  to_ms u "$child_user"
  to_ms s "$child_sys"
  cpu_ms=$(( u + s ))
}

# times CMD...: run it $runs times with the input, print p50 and p99 of
# the wall time in ms, and its CPU time (user and system) per run: on a
# shared machine the wall time is mostly the wait for a core, the CPU
# time what the run itself costs.
times() {
  local t0 t1 c0 c1 cpus=0 all=()
  for _ in $(seq "$runs"); do
    [ -n "${BEFORE:-}" ] && eval "$BEFORE"
    cpu
    c0=$cpu_ms
    t0=$EPOCHREALTIME
    "$@" <"$input" >/dev/null 2>&1
    t1=$EPOCHREALTIME
    cpu
    c1=$cpu_ms
    cpus=$(( cpus + c1 - c0 ))
    all+=($(( ${t1/./} - ${t0/./} )))
  done
  printf '%s\n' "${all[@]}" | sort -n | awk -v n="$runs" -v cpu="$cpus" '{v[NR]=$1} END {
    p50=v[int((n+1)*0.50)]; p99=v[int(n*0.99)>0?int(n*0.99):1];
    printf "p50 %7.1f ms   p99 %7.1f ms   max %7.1f ms   cpu %5.1f ms a run\n", p50/1000, p99/1000, v[n]/1000, cpu/n }'
}

echo "mcpcost statusline: $("$bin/mcpcost" statusline <"$input")"
printf '%-34s ' "mcpcost statusline, cached"; times "$bin/mcpcost" statusline
printf '%-34s ' "mcpcost statusline, cold"; BEFORE='rm -rf "$XDG_CACHE_HOME/mcpcost/statusline"' times "$bin/mcpcost" statusline
"$ccusage" statusline --offline <"$input" >/dev/null 2>&1 || true
printf '%-34s ' "ccusage statusline, cached"; times "$ccusage" statusline --offline
