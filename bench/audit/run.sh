#!/usr/bin/env bash
# bench/audit/run.sh: time "mcpcost audit" of a config of real servers
# against the single-launch floor: the same servers each launched once, all
# at once ("mcpcost measure --once" of each, in parallel), in one run, and
# print the ratio. Goal: at most 1.15x. "audit --strict" (two launches of
# each server, as every audit did before) is timed beside it.
#
# The servers: the npm reference servers in $MCPCOST_NPM_DIR (everything,
# filesystem, memory), when installed, and the Go example servers (notes,
# units). Each audit starts from an empty cache, so every server is
# launched.
#
#   bench/audit/run.sh            3 timed rounds after a warm-up
#   RUNS=5 bench/audit/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
work=${WORK:-$root/.cache/bench-audit}
rm -rf "$work"
mkdir -p "$work/bin"

CGO_ENABLED=0 go build -o "$work/mcpcost" ./cmd/mcpcost
go build -o "$work/bin/notes" ./examples/servers/notes
go build -o "$work/bin/units" ./examples/servers/units

# One launch line per server: name, then the command and its arguments.
servers=("notes $work/bin/notes" "units $work/bin/units")
npm=${MCPCOST_NPM_DIR:-$root/.cache/npm}/node_modules/.bin
mkdir -p "$work/files"
for s in everything memory; do
	[ -x "$npm/mcp-server-$s" ] && servers+=("$s $npm/mcp-server-$s")
done
[ -x "$npm/mcp-server-filesystem" ] && servers+=("filesystem $npm/mcp-server-filesystem $work/files")

# The config, as an .mcp.json.
{
	echo '{"mcpServers": {'
	sep=""
	for line in "${servers[@]}"; do
		read -r name cmd args <<<"$line"
		printf '%s"%s": {"command": "%s", "args": [%s]}' "$sep" "$name" "$cmd" "${args:+\"$args\"}"
		sep=$',\n'
	done
	echo '}}'
} >"$work/mcp.json"

now() { date +%s.%N; }

floor() {
	local pids=()
	for line in "${servers[@]}"; do
		read -r name cmd args <<<"$line"
		# shellcheck disable=SC2086
		"$work/mcpcost" measure --once --json -- "$cmd" $args >/dev/null &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
}

audit() {
	rm -rf "$work/cache"
	MCPCOST_CACHE_DIR=$work/cache "$work/mcpcost" audit --config "$work/mcp.json" "$@" >/dev/null
}

timed() {
	local t0 t1
	t0=$(now)
	"$@"
	t1=$(now)
	echo "$t1 - $t0" | bc -l
}

stats() { # min median max of the numbers on stdin
	sort -g | awk '{a[NR]=$1} END {printf "min %.2f  median %.2f  max %.2f", a[1], a[int((NR+1)/2)], a[NR]}'
}

echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (with changes)')"
echo "machine: $(nproc) CPUs, $(uname -sr), $(go version | cut -d' ' -f3-)"
echo "servers (${#servers[@]}): $(for l in "${servers[@]}"; do printf '%s ' "${l%% *}"; done)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
floor
audit # warm-up: the file cache, node's compile cache
: >"$work/once" && : >"$work/strict"
for i in $(seq "${RUNS:-3}"); do
	f=$(timed floor)
	a=$(timed audit)
	s=$(timed audit --strict)
	ro=$(echo "$a / $f" | bc -l)
	rs=$(echo "$s / $f" | bc -l)
	echo "$ro" >>"$work/once"
	echo "$rs" >>"$work/strict"
	printf 'round %d: floor %.2fs  audit %.2fs (%.2fx)  audit --strict %.2fs (%.2fx)\n' "$i" "$f" "$a" "$ro" "$s" "$rs"
done
echo "audit / floor:          $(stats <"$work/once")  (goal <= 1.15)"
echo "audit --strict / floor: $(stats <"$work/strict")"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
