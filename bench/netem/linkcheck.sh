#!/usr/bin/env bash
# Runs `spdylab link check` on the channel conditions of the built-in studies and
# prints one markdown row per condition: configured vs measured RTT (p50/p99),
# TCP goodput each way, loss each way, DNS lookup time, and the verdict.
# Needs root. Usage: bench/netem/linkcheck.sh [path/to/spdylab]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-bin/spdylab}
[ -x "$bin" ] || go build -o "$bin" ./cmd/spdylab

conditions=(
	"--rtt 20ms --down 10mbit --up 1mbit"
	"--rtt 100ms --down 10mbit --up 1mbit"
	"--rtt 20ms --down 20mbit --up 2mbit"
	"--rtt 100ms --down 20mbit --up 2mbit --loss 1%"
	"--rtt 150ms --down 1mbit --up 1mbit --queue 256pkt"
	"--rtt 150ms --down 64kbit --up 64kbit --queue 256pkt"
	"--rtt 60ms --down 5mbit --up 5mbit"
	"--rtt 200ms --down 100mbit --up 100mbit --queue 1000pkt"
)
echo "| condition | rtt p50 / p99 ms | down Mbit/s (expected) | up Mbit/s (expected) | loss up / down % | dns ms | verdict |"
echo "|---|---|---|---|---|---|---|"
for c in "${conditions[@]}"; do
	# shellcheck disable=SC2086
	out=$("$bin" link check --json $c) || true
	echo "$out" | jq -r --arg c "$c" '
		def m(n): (.measurements[] | select(.name == n));
		def f(x): (x * 100 | round / 100 | tostring);
		"| `\($c)` | \(f(.rtt_p50_ms)) / \(f(.rtt_p99_ms)) | \(f(m("down").measured)) (\(f(m("down").expected))) | \(f(m("up").measured)) (\(f(m("up").expected))) | \(f(m("loss_up").measured)) / \(f(m("loss_down").measured)) | \(f(m("dns").measured)) | \(if .ok then "PASS" else "FAIL: " + ([.measurements[] | select(.pass | not) | .name] | join(",")) end) |"'
done
