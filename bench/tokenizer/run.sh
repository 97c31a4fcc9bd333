#!/usr/bin/env bash
# bench/tokenizer/run.sh: time mcpcost's o200k_base counter,
# github.com/tiktoken-go/tokenizer and npm tiktoken on the same inputs, in
# one run, and check that they count the same.
#
#   bench/tokenizer/run.sh                 5 rounds x 3 timed runs
#   ROUNDS=9 RUNS=5 bench/tokenizer/run.sh
#   CORPUS=/path/to/corpus bench/tokenizer/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
die() { printf 'run.sh: error: %s\n' "$*" >&2; exit 1; }

corpus=${CORPUS:-${MCPCOST_SHARED:-$root/../shared}/corpus}
[ -d "$corpus" ] || corpus=$root/internal/token/testdata/corpus
work=${WORK:-$root/.cache/bench-tokenizer}
mkdir -p "$work"

npmdir=${MCPCOST_NPM_DIR:-$root/.cache/npm}
if [ ! -d "$npmdir/node_modules/tiktoken" ]; then
  printf 'installing the npm peers into %s\n' "$npmdir" >&2
  mkdir -p "$npmdir"
  cp scripts/npm/package.json scripts/npm/package-lock.json "$npmdir/"
  (cd "$npmdir" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed"
fi
command -v node >/dev/null || die "node is not installed"

go build -o "$work/tokenizer" ./bench/tokenizer
echo "inputs (corpus: $corpus)"
"$work/tokenizer" gen -corpus "$corpus" -out "$work" -mb "${MB:-10}"
echo
echo "machine: $(nproc) CPUs, $(uname -sr), $(go version | cut -d' ' -f3-), node $(node --version)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
"$work/tokenizer" run -inputs "$work" -rounds "${ROUNDS:-5}" -runs "${RUNS:-3}" \
  -node "$(command -v node)" -script "$root/bench/tokenizer/tiktoken.js" \
  -tiktoken "$npmdir/node_modules/tiktoken"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
