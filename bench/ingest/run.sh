#!/usr/bin/env bash
# bench/ingest/run.sh: time mcpcost's transcript ingestion against ccusage
# on one generated tree, in one run:
#
#   1. ccusage daily (the native Rust binary of ccusage 20.0.24, run directly)
#   2. mcpcost's first full ingest (strictly more work: every tool result
#      counted exactly in o200k_base, tool calls paired, all stored)
#   3. a second ingest with nothing new
#   4. mcpcost usage on the ingested store (--no-ingest)
#   5. mcpcost findings and report on it, over the whole history
#
# and prints each one's wall time and peak memory, and the ratios to
# ccusage daily. Goals: first ingest <= 2x ccusage, re-run (report
# included) <= 2% of the first ingest, usage <= 10% of ccusage, peak
# memory of an ingest <= 100 MB. runs.sh repeats it and sums up.
#
#   bench/ingest/run.sh                 300 sessions, about 500 MB
#   MB=50 SESSIONS=30 bench/ingest/run.sh   a smaller tree
#   BENCH_DIR=/some/tmp bench/ingest/run.sh  where the tree and store go
#   COMMIT=abc123 bench/ingest/run.sh   mcpcost as of another commit
#
# ccusage comes from .cache/npm (scripts/test installs it there).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
mb=${MB:-500}
sessions=${SESSIONS:-300}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}/mcpcost-bench-$sessions-$mb}
bin=$dir/bin
mkdir -p "$bin"

ccusage=$root/.cache/npm/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage
[ -x "$ccusage" ] || ccusage=$root/.cache/npm/node_modules/.bin/ccusage
[ -x "$ccusage" ] || { echo "bench: ccusage is not installed in .cache/npm (run scripts/test)" >&2; exit 1; }

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
echo "mcpcost: $commit"
go build -o "$bin/gen" ./bench/ingest/gen
go build -o "$bin/rusage" ./bench/ingest/rusage

if [ ! -f "$dir/home/.done" ]; then
  rm -rf "$dir/home"
  echo "generating $sessions sessions, about $mb MB, into $dir/home" >&2
  "$bin/gen" -out "$dir/home" -sessions "$sessions" -mb "$mb" -seed 42
  touch "$dir/home/.done"
fi
du -sb "$dir/home/.claude" | awk '{printf "tree: %.1f MB\n", $1/1e6}'

# timed NAME CMD...: runs CMD, records wall seconds and peak RSS (MB).
declare -A wall rss cpu
timed() {
  local name=$1; shift
  local log=$dir/$name.time
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v "$@" > "$dir/$name.out" 2> "$log"
  else
    "$bin/rusage" "$@" > "$dir/$name.out" 2> "$log"
  fi
  wall[$name]=$(awk -F': ' '/Elapsed \(wall clock\)/ {
      n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$log")
  rss[$name]=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$log")
  cpu[$name]=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$log")
  printf '%-22s %8.2f s wall  %7.2f s CPU  %6s MB\n' "$name" "${wall[$name]}" "${cpu[$name]}" "${rss[$name]}"
}

export HOME=$dir/home CLAUDE_CONFIG_DIR=$dir/home/.claude TZ=UTC
db=$dir/usage.db
rm -f "$db" "$db-wal" "$db-shm"
cat "$dir"/home/.claude/projects/*/*.jsonl > /dev/null   # warm the page cache
mkdir -p "$dir/home/.codex"   # named below; a tree with no Codex sessions has none

timed ccusage-daily "$ccusage" daily --offline --json
# The same report (by day) in all three, so that the re-run's difference
# to the report alone is the cost of finding nothing new.
timed mcpcost-first "$bin/mcpcost" usage --db "$db" --claude-dir "$dir/home/.claude" --codex-dir "$dir/home/.codex" --by day --json
timed mcpcost-rerun "$bin/mcpcost" usage --db "$db" --claude-dir "$dir/home/.claude" --codex-dir "$dir/home/.codex" --by day
timed mcpcost-usage "$bin/mcpcost" usage --db "$db" --no-ingest --by day
# Findings and the report over every day the tree covers.
span=(--since 2000-01-01 --until "$(date -u +%Y-%m-%d)")
timed mcpcost-findings "$bin/mcpcost" findings --db "$db" --no-ingest "${span[@]}" --json
timed mcpcost-report "$bin/mcpcost" report --db "$db" --no-ingest "${span[@]}" --json

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
base=${wall[ccusage-daily]}
echo
echo "first ingest / ccusage daily:  $(ratio "${wall[mcpcost-first]}" "$base")x   (goal <= 2x)"
echo "re-run       / ccusage daily:  $(ratio "${wall[mcpcost-rerun]}" "$base")x"
echo "re-run       / first ingest:   $(ratio "${wall[mcpcost-rerun]}" "${wall[mcpcost-first]}")x   (goal <= 0.02x)"
echo "  of which finding nothing new (re-run minus usage): $(awk -v a="${wall[mcpcost-rerun]}" -v b="${wall[mcpcost-usage]}" -v c="$base" 'BEGIN { printf "%.2f s, %.3fx", a - b, (a - b) / c }')"
echo "usage        / ccusage daily:  $(ratio "${wall[mcpcost-usage]}" "$base")x   (goal <= 0.1x)"
echo "CPU time (steadier than wall time on a busy machine):"
echo "  first ingest / ccusage daily: $(ratio "${cpu[mcpcost-first]}" "${cpu[ccusage-daily]}")x"
echo "  re-run       / ccusage daily: $(ratio "${cpu[mcpcost-rerun]}" "${cpu[ccusage-daily]}")x"
echo "  re-run       / first ingest:  $(ratio "${cpu[mcpcost-rerun]}" "${cpu[mcpcost-first]}")x"
echo "  usage        / ccusage daily: $(ratio "${cpu[mcpcost-usage]}" "${cpu[ccusage-daily]}")x"
echo "peak memory of mcpcost's ingests: $(printf '%s\n' "${rss[mcpcost-first]}" "${rss[mcpcost-rerun]}" | sort -n | tail -1) MB   (goal <= 100 MB)"
echo "peak memory of findings and report: $(printf '%s\n' "${rss[mcpcost-findings]}" "${rss[mcpcost-report]}" | sort -n | tail -1) MB   (goal <= 150 MB at 2 GB)"

# The two must agree on the totals.
python3 - "$dir" <<'PY' 2>/dev/null || true
import json, sys
d = sys.argv[1]
cc = json.load(open(d + "/ccusage-daily.out"))["totals"]
mc = json.load(open(d + "/mcpcost-first.out"))["totals"]["tokens"]
print("totals: ccusage %d tokens, mcpcost %d tokens: %s" % (cc["totalTokens"], mc["total"],
      "equal" if cc["totalTokens"] == mc["total"] else "DIFFERENT"))
PY
