#!/usr/bin/env bash
# bench/ingest/calls.sh: time mcpcost's first ingest of one Claude Code
# transcript holding N tool calls, for several N, and print the time per
# call: it should stay flat as N grows (an ingest linear in the calls of
# a file).
#
# Each line is an assistant message making one MCP tool call with its own
# arguments, a new session every PER lines (1,000 by default); the file's
# name is no session's, so every line reads as copied into a resumed
# session (each call's copies are settled). MODE is that of the review's
# generator (var.py F N MODE PER), whose lines these are byte for byte:
# tooluniq (the default; each call's own arguments), tool (arguments
# repeating every 7 calls), answered and answereduniq (each call's result
# on a line of its own).
#
#   bench/ingest/calls.sh                       5,000 to 200,000 calls
#   CALLS="5000 10000" bench/ingest/calls.sh    other sizes
#   MODE=answereduniq PER=500 bench/ingest/calls.sh
#   COMMIT=abc123 bench/ingest/calls.sh         mcpcost as of another commit
#   TIMEOUT=120 bench/ingest/calls.sh           give up on a size after 120 s
#   BENCH_DIR=/some/tmp bench/ingest/calls.sh   where the files and stores go
#
# The machine is shared: compare CPU per call, and sizes within one run.
set -euo pipefail
cd "$(dirname "$0")/../.."
calls=${CALLS:-5000 20000 50000 200000}
mode=${MODE:-tooluniq}
per=${PER:-1000}
timeout=${TIMEOUT:-1800}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}/mcpcost-bench-calls}
bin=$dir/bin
mkdir -p "$bin"

commit=${COMMIT:-HEAD}
if [ "$commit" = HEAD ]; then
  go build -o "$bin/mcpcost" ./cmd/mcpcost
  commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo +changes)"
else
  src=$dir/src-$commit
  rm -rf "$src" && mkdir -p "$src"
  git archive "$commit" | tar -x -C "$src"
  (cd "$src" && go build -o "$bin/mcpcost" ./cmd/mcpcost)
  rm -rf "$src"
fi
go build -o "$bin/rusage" ./bench/ingest/rusage
echo "mcpcost: $commit, $mode, a session every $per lines"

# gen N FILE: the transcript of N calls.
gen() {
  awk -v n="$1" -v mode="$mode" -v per="$per" 'BEGIN {
    for (i = 0; i < n; i++) {
      sid = "s" int(i / per); a = mode ~ /uniq/ ? i : i % 7
      ts = sprintf("2026-11-%02dT%02d:%02d:%02dZ", 1 + int(i / 86400) % 28, int(i / 3600) % 24, int(i / 60) % 60, i % 60)
      printf "{\"cwd\": \"/home/u/p\", \"sessionId\": \"%s\", \"version\": \"2.1.97\", \"type\": \"assistant\", \"message\": {\"id\": \"m%d\", \"model\": \"claude-sonnet-4-5\", \"role\": \"assistant\", \"content\": [{\"type\": \"tool_use\", \"id\": \"t%d\", \"name\": \"mcp__gh__x\", \"input\": {\"a\": %d}}], \"usage\": {\"input_tokens\": %d, \"output_tokens\": 3}}, \"requestId\": \"r%d\", \"uuid\": \"a%d\", \"timestamp\": \"%s\"}\n", sid, i, i, a, i % 100, i, i, ts
      if (mode ~ /^answered/)
        printf "{\"cwd\": \"/home/u/p\", \"sessionId\": \"%s\", \"type\": \"user\", \"message\": {\"role\": \"user\", \"content\": [{\"tool_use_id\": \"t%d\", \"type\": \"tool_result\", \"content\": \"ok\"}]}, \"uuid\": \"u%d\", \"timestamp\": \"%s\"}\n", sid, i, i, ts
    }
  }' > "$2"
}

printf '%9s %9s %9s %11s %11s %8s\n' calls wall CPU "wall/call" "CPU/call" "MB"
first=
for n in $calls; do
  home=$dir/$mode-$per-$n/home
  if [ ! -f "$home/.done" ]; then
    rm -rf "$home" && mkdir -p "$home/.claude/projects/p"
    gen "$n" "$home/.claude/projects/p/f.jsonl"
    touch "$home/.done"
  fi
  rm -rf "$home/.local" "$home/.config"
  cat "$home/.claude/projects/p/f.jsonl" > /dev/null   # warm the page cache
  log=$dir/$mode-$per-$n.time
  if ! HOME=$home TZ=UTC timeout "$timeout" "$bin/rusage" "$bin/mcpcost" usage -q > /dev/null 2> "$log"; then
    printf '%9s %9s  (gave up after %s s)\n' "$n" "> $timeout" "$timeout"
    continue
  fi
  awk -F': ' -v n="$n" '
    /Elapsed \(wall clock\)/ { k = split($2, p, ":"); for (i = 1; i <= k; i++) w = w * 60 + p[i] }
    /User time|System time/ { c += $2 }
    /Maximum resident set size/ { m = $2 / 1024 }
    END { printf "%9d %8.2fs %8.2fs %9.1fus %9.1fus %8.0f\n", n, w, c, w / n * 1e6, c / n * 1e6, m }' "$log"
done
