#!/usr/bin/env bash
# bench/measure/run.sh: time "mcpcost measure FILE --json --out F" as a
# whole process against the plain reference (encoding/json and
# github.com/tiktoken-go/tokenizer giving the methodology's figures) on a
# 5 MB tools list made from the corpus, in one run, and print the ratio.
# Goal: at least 5x.
#
#   bench/measure/run.sh              5 timed pairs after a warm-up
#   RUNS=9 MB=10 bench/measure/run.sh
#   CORPUS=/path/to/corpus bench/measure/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
corpus=${CORPUS:-${MCPCOST_SHARED:-$root/../shared}/corpus}
[ -d "$corpus" ] || corpus=$root/internal/token/testdata/corpus
work=${WORK:-$root/.cache/bench-measure}
mkdir -p "$work"

CGO_ENABLED=0 go build -o "$work/mcpcost" ./cmd/mcpcost
go build -o "$work/measure" ./bench/measure
"$work/measure" gen -corpus "$corpus" -out "$work/tools.json" -mb "${MB:-5}"
echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (with changes)')"
echo "machine: $(nproc) CPUs, $(uname -sr), $(go version | cut -d' ' -f3-)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$work/measure" run -mcpcost "$work/mcpcost" -file "$work/tools.json" -runs "${RUNS:-5}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
