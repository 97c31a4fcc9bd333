#!/usr/bin/env bash
# bench/ingest/runs.sh: run.sh RUNS times (default 3) on the same tree,
# and print the minimum, median and maximum of each ratio and of each
# peak memory, with the commit measured. The same variables as run.sh
# (MB, SESSIONS, BENCH_DIR, COMMIT).
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${RUNS:-3}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}/mcpcost-bench-${SESSIONS:-300}-${MB:-500}}
mkdir -p "$dir"
out=$dir/runs-${COMMIT:-HEAD}.log   # every run's output, kept
: > "$out"
for i in $(seq "$runs"); do
  echo "run $i of $runs" >&2
  bench/ingest/run.sh > "$out.$i" 2>&1 || { cat "$out.$i" >&2; exit 1; }
  cat "$out.$i" >> "$out"
  rm -f "$out.$i"
done
grep -m1 '^mcpcost: ' "$out"
grep -m1 '^tree: ' "$out"
grep '^totals: ' "$out" | sort | uniq -c
# stat LABEL PATTERN [FIELD]: min, median and max of field FIELD (else
# the first ratio, "1.23x") of the lines matching PATTERN.
stat() {
  grep -E "$2" "$out" | awk -v f="${3:-0}" '{ v = ""; if (f) v = $f; else for (i = 1; i <= NF && v == ""; i++) if ($i ~ /^[0-9.]+x$/) v = $i; sub(/x$/, "", v); print v }' | sort -g |
    awk -v l="$1" '{ a[NR] = $1 } END { printf "%-40s min %s  median %s  max %s\n", l, a[1], a[int((NR + 1) / 2)], a[NR] }'
}
echo "wall time ratios, $runs runs:"
stat "  first ingest / ccusage (goal <= 2)" '^first ingest / ccusage'
stat "  re-run / first ingest (goal <= 0.02)" '^re-run +/ first ingest'
stat "  usage / ccusage (goal <= 0.1)" '^usage +/ ccusage'
echo "CPU time ratios:"
stat "  first ingest / ccusage" '^  first ingest / ccusage'
stat "  re-run / first ingest" '^  re-run +/ first ingest'
stat "  usage / ccusage" '^  usage +/ ccusage'
echo "peak memory (MB):"
stat "  ccusage daily" '^ccusage-daily ' 8
stat "  first ingest (goal <= 100)" '^mcpcost-first ' 8
stat "  re-run" '^mcpcost-rerun ' 8
stat "  usage" '^mcpcost-usage ' 8
stat "  findings" '^mcpcost-findings ' 8
stat "  report" '^mcpcost-report ' 8
echo "findings and report, wall seconds:"
stat "  findings" '^mcpcost-findings ' 2
stat "  report" '^mcpcost-report ' 2
