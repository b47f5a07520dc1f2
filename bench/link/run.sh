#!/usr/bin/env bash
# Reproduces the "netem/link" section of BENCHMARKS.md: builds linkbench and
# runs every scenario (RTT, goodput, ceiling, loss, CPU, queue, initcwnd,
# overhead) with 3 repetitions. Needs root; takes about 25 minutes.
# Extra arguments go to linkbench, e.g. `bench/link/run.sh -only rtt -reps 5`.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v tcpdump >/dev/null || { echo "run.sh: tcpdump is missing (scripts/deps.sh installs it)" >&2; exit 1; }
bin=$(mktemp -d)/linkbench
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./bench/link
go test -run '^$' -bench . -benchtime 3000x ./netem/link
"$bin" -reps 3 "$@"
