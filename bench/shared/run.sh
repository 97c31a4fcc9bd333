#!/usr/bin/env bash
# bench/shared/run.sh: time mcpcost's shared PostgreSQL store against the
# local SQLite store, in paired runs on one generated tree:
#
#   1. a first ingest: "usage --by day" into a new SQLite store, against
#      "usage --store postgres://... --by day" (the same ingest into a new
#      local store, then a push of every row to a new database, then a new
#      replica of it read back), RUNS times each, alternating;
#   2. "usage --by day" on a shared store ten machines pushed to (ten homes
#      of a tenth of the tree each): with a new replica (everything read
#      from PostgreSQL), with an up-to-date one (nothing new to read),
#      against "usage --by day --no-ingest" on one SQLite store holding
#      the same ten homes.
#
# and prints each run's wall and CPU time, and the ratios (median of the
# runs). The PostgreSQL server is MCPCOST_TEST_PG, else the one on
# 127.0.0.1:5432 (user postgres, trust); each database is made for the run
# and dropped after it.
#
#   bench/shared/run.sh                      200 MB, 120 sessions, 3 runs
#   MB=50 SESSIONS=30 RUNS=1 bench/shared/run.sh   a smaller tree
#   BENCH_DIR=/some/tmp bench/shared/run.sh  where the trees and stores go
set -euo pipefail
cd "$(dirname "$0")/../.."
mb=${MB:-200}
sessions=${SESSIONS:-120}
runs=${RUNS:-3}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}/mcpcost-bench-shared-$sessions-$mb}
server=${MCPCOST_TEST_PG:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
bin=$dir/bin
mkdir -p "$bin"
command -v psql > /dev/null || { echo "bench: psql is needed to make the databases" >&2; exit 1; }
psql -qAt "$server" -c 'SELECT 1' > /dev/null || { echo "bench: no PostgreSQL server at $server" >&2; exit 1; }

go build -o "$bin/mcpcost" ./cmd/mcpcost
go build -o "$bin/gen" ./bench/ingest/gen
go build -o "$bin/rusage" ./bench/ingest/rusage
echo "mcpcost: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo +changes)"
psql -qAt "$server" -c 'SHOW server_version' | sed 's/^/postgresql: /'

# The tree of the first ingest, and ten homes of a tenth of it each.
if [ ! -f "$dir/home/.done" ]; then
  rm -rf "$dir/home"
  "$bin/gen" -out "$dir/home" -sessions "$sessions" -mb "$mb" -seed 42
  touch "$dir/home/.done"
fi
for i in $(seq 0 9); do
  if [ ! -f "$dir/home$i/.done" ]; then
    rm -rf "$dir/home$i"
    "$bin/gen" -out "$dir/home$i" -sessions $(( (sessions + 9) / 10 )) -mb $(( (mb + 9) / 10 )) -seed $(( 100 + i ))
    touch "$dir/home$i/.done"
  fi
done
du -sb "$dir/home/.claude" | awk '{printf "tree: %.1f MB\n", $1/1e6}'
du -scb "$dir"/home?/.claude | tail -1 | awk '{printf "ten homes: %.1f MB in all\n", $1/1e6}'

# A database of its own for each shared store, dropped at the end.
dbs=()
newdb() {
  local name=mcpcost_bench_$$_$1
  psql -qAt "$server" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" -c "CREATE DATABASE $name" > /dev/null 2>&1
  dbs+=("$name")
  url=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$server" "$name")
}
cleanup() { for d in "${dbs[@]}"; do psql -qAt "$server" -c "DROP DATABASE IF EXISTS $d WITH (FORCE)" > /dev/null || true; done; }
trap cleanup EXIT

# timed NAME CMD...: runs CMD, records wall and CPU seconds in wall[NAME]
# and cpu[NAME] (appended, one value a run).
declare -A wall cpu
timed() {
  local name=$1; shift
  local log=$dir/$name.time
  "$bin/rusage" "$@" > "$dir/$name.out" 2> "$log"
  local w c
  w=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$log")
  c=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$log")
  wall[$name]+="$w "
  cpu[$name]+="$c "
  printf '%-26s %8.2f s wall  %7.2f s CPU\n' "$name" "$w" "$c"
}
median() { tr ' ' '\n' <<< "$1" | grep . | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$(median "$1")" -v b="$(median "$2")" 'BEGIN { printf "%.2f", a / b }'; }

export TZ=UTC XDG_CACHE_HOME=$dir/cache XDG_CONFIG_HOME=$dir/config
unset MCPCOST_STORE
cat "$dir"/home/.claude/projects/*/*.jsonl > /dev/null   # warm the page cache

echo
echo "first ingest, $runs runs each, alternating:"
for r in $(seq "$runs"); do
  rm -rf "$dir/sqlite.db"* "$dir/local.db"* "$dir/cache"
  timed sqlite-first env HOME="$dir/home" "$bin/mcpcost" usage --db "$dir/sqlite.db" --claude-dir "$dir/home/.claude" --by day --json
  newdb "first$r"
  timed postgres-first env HOME="$dir/home" MCPCOST_MACHINE=bench "$bin/mcpcost" usage --store "$url" --db "$dir/local.db" --claude-dir "$dir/home/.claude" --by day --json
  timed postgres-push-only env HOME="$dir/home" "$bin/mcpcost" push --store "$url" --machine bench --db "$dir/local.db" --no-ingest --json
done
python3 - "$dir" <<'PY' || true
import json, sys
d = sys.argv[1]
a = json.load(open(d + "/sqlite-first.out"))["totals"]["tokens"]["total"]
b = json.load(open(d + "/postgres-first.out"))["totals"]["tokens"]["total"]
print("totals: sqlite %d tokens, postgres %d tokens: %s" % (a, b, "equal" if a == b else "DIFFERENT"))
PY

echo
echo "ten machines pushed to one store:"
newdb ten
ten=$url
homes=()
for i in $(seq 0 9); do
  env HOME="$dir/home$i" "$bin/mcpcost" push --store "$ten" --machine "machine-$i" --db "$dir/home$i.db" --claude-dir "$dir/home$i/.claude" > /dev/null 2>&1
  homes+=(--claude-dir "$dir/home$i/.claude")
done
rm -f "$dir/union.db"*
env HOME="$dir/home0" "$bin/mcpcost" usage --db "$dir/union.db" "${homes[@]}" --by day > /dev/null 2>&1
for r in $(seq "$runs"); do
  rm -rf "$dir/cache"
  timed shared-day-new-replica env HOME="$dir/home0" "$bin/mcpcost" usage --store "$ten" --no-ingest --by day --json
  timed shared-day-replica env HOME="$dir/home0" "$bin/mcpcost" usage --store "$ten" --no-ingest --by day --json
  timed sqlite-day env HOME="$dir/home0" "$bin/mcpcost" usage --db "$dir/union.db" --no-ingest --by day --json
done
python3 - "$dir" <<'PY' || true
import json, sys
d = sys.argv[1]
a = json.load(open(d + "/sqlite-day.out"))["totals"]
b = json.load(open(d + "/shared-day-replica.out"))["totals"]
print("totals: one sqlite store %d requests, %d tokens; shared %d requests, %d tokens: %s" % (a["requests"], a["tokens"]["total"],
      b["requests"], b["tokens"]["total"], "equal" if a == b else "DIFFERENT"))
PY
by_machine=$(env HOME="$dir/home0" "$bin/mcpcost" usage --store "$ten" --no-ingest --by machine --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["usage"]))')
echo "machines in the shared store: $by_machine"

echo
echo "median wall time ratios:"
echo "first ingest, postgres / sqlite:           $(ratio "${wall[postgres-first]}" "${wall[sqlite-first]}")x"
echo "  a push with nothing new / sqlite ingest: $(ratio "${wall[postgres-push-only]}" "${wall[sqlite-first]}")x"
echo "usage --by day, 10 machines:"
echo "  new replica / one sqlite store:          $(ratio "${wall[shared-day-new-replica]}" "${wall[sqlite-day]}")x"
echo "  up-to-date replica / one sqlite store:   $(ratio "${wall[shared-day-replica]}" "${wall[sqlite-day]}")x"
echo "median CPU time ratios:"
echo "first ingest, postgres / sqlite:           $(ratio "${cpu[postgres-first]}" "${cpu[sqlite-first]}")x"
echo "  up-to-date replica / one sqlite store:   $(ratio "${cpu[shared-day-replica]}" "${cpu[sqlite-day]}")x"
