#!/bin/sh
# Repeatability of `spdylab load`: the same condition measured twice back to
# back (fresh testbed each time) should give the same medians.
# Condition: pageA, 1 server, 10 Mbit/s down / 1 Mbit/s up, 100 ms RTT,
# 50-packet queues, 0% loss, 20 loads per protocol, https and spdy/3.1
# interleaved. Needs root (network namespaces).
# Usage: bench/load-repeatability.sh [path/to/spdylab] [runs]
# NICE=-10 runs spdylab at that nice level (root), which shields the
# user-space link emulator from other jobs on a shared machine.
set -eu
BIN=${1:-./spdylab}
RUNS=${2:-20}
NICE=${NICE:-0}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM
for pass in 1 2; do
	nice -n "$NICE" "$BIN" load --page pageA --proto https,spdy/3.1 --runs "$RUNS" --json \
		--down 10mbit --up 1mbit --rtt 100ms --queue 50pkt --loss 0 \
		--work-dir "$WORK/cache" >"$WORK/pass$pass.jsonl"
done
# One line per protocol: median PLT and ToW of each pass and the relative
# difference between the passes.
awk '
function field(line, key,   re, m) {
	re = "\"" key "\":[-0-9.e+]+"
	if (match(line, re)) { m = substr(line, RSTART, RLENGTH); sub(/.*:/, "", m); return m + 0 }
	return -1
}
function proto(line,   m) { match(line, /"proto":"[^"]*"/); m = substr(line, RSTART + 9, RLENGTH - 10); return m }
FNR == NR { plt[proto($0)] = field($0, "plt_median_ms"); tow[proto($0)] = field($0, "tow_median_ms"); fail[proto($0)] = field($0, "failed"); next }
{
	p = proto($0); p2 = field($0, "plt_median_ms"); t2 = field($0, "tow_median_ms")
	printf "%-9s PLT median %8.1f / %8.1f ms (diff %5.2f%%)  ToW median %8.1f / %8.1f ms (diff %5.2f%%)  failed %d/%d\n",
		p, plt[p], p2, 100 * (p2 - plt[p]) / plt[p], tow[p], t2, 100 * (t2 - tow[p]) / tow[p], fail[p], field($0, "failed")
}' "$WORK/pass1.jsonl" "$WORK/pass2.jsonl"
