#!/usr/bin/env bash
# Wall time and parallel fidelity of a study at several -j values.
#
#   bash bench/study-parallel.sh [STUDY] [J...]      (default: quick 1 1 2 4 8)
#   RUN_ARGS='--runs 1' bash bench/study-parallel.sh study1-cablelabs 1 4 8
#
# Runs STUDY once per listed -j into $ROOT/j<N>-<k> (ROOT defaults to a fresh
# temporary directory), prints each run's wall time and the sum of its loads'
# PLTs (the serial lower bound), then compares every run's per-condition
# median PLTs with the first run's (spdylab report --compare): a -j whose
# medians stay within the run-to-run noise of two -j 1 runs is safe to use.
# Needs root (network namespaces). Do not run anything else heavy meanwhile.
set -euo pipefail
cd "$(dirname "$0")/.."
STUDY=${1:-quick}
shift || true
JOBS=("$@")
[ ${#JOBS[@]} -gt 0 ] || JOBS=(1 1 2 4 8)
BIN=${BIN:-bin/spdylab}
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/spdylab
ROOT=${ROOT:-$(mktemp -d /tmp/spdylab-parallel.XXXXXX)}
echo "study $STUDY, results under $ROOT, $(nproc) CPUs, $(uname -r), $(date -u +%F)"
ref=""
k=0
for j in "${JOBS[@]}"; do
	k=$((k + 1))
	out="$ROOT/j$j-$k"
	start=$(date +%s.%N)
	"$BIN" run "$STUDY" -j "$j" --out "$out" -q --no-report ${RUN_ARGS:-}
	end=$(date +%s.%N)
	wall=$(echo "$end - $start" | bc)
	echo "run $k: -j $j wall ${wall}s"
	if [ -z "$ref" ]; then
		ref=$out
	else
		"$BIN" report --compare "$ref" "$out" | tail -5
	fi
done
