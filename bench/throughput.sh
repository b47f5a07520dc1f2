#!/usr/bin/env bash
# Server throughput: spdylab serve vs a node-spdy server on loopback, both
# driven by spdylab's SPDY client, interleaved in one run. Prints a table.
#   bash bench/throughput.sh [-duration 3s] [-rounds 5] [-plain] [-cpuprofile FILE] ...
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh >/dev/null
mkdir -p bin
go build -o bin/spdylab ./cmd/spdylab
go build -o bin/throughput ./bench/throughput
echo "# $(date -u +%Y-%m-%dT%H:%MZ), nproc $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
exec bin/throughput -spdylab bin/spdylab -node-dir interop/node "$@"
