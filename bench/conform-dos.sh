#!/usr/bin/env bash
# Runs `spdylab conform` against spdylab's server and node-spdy on loopback:
# the whole suite once per server and version, then every DoS case alone
# against a fresh server process with --server-pid, so each case's memory
# growth is its own. JSON results go to OUT; bench/conform-table.py makes
# the table.
#
#   bench/conform-dos.sh OUT     (from the repository root, after
#                                 go build -o bin/spdylab ./cmd/spdylab and
#                                 scripts/deps.sh for node-spdy)
set -euo pipefail
out=${1:?usage: bench/conform-dos.sh OUT}
mkdir -p "$out"
bin=$PWD/bin/spdylab
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -days 2 \
	-keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null

# start SERVER VERSION TRANSPORT: starts a server, sets url and pid.
start() {
	local server=$1 version=$2 transport=$3 log=$tmp/$1.$$.$RANDOM
	if [ "$server" = spdylab ]; then
		local a=(serve --h3=false --listen 127.0.0.1:0)
		[ "$transport" = plain ] && a+=(--plain "$version")
		[ "$transport" = tls ] && a+=(--cert "$tmp/cert.pem" --key "$tmp/key.pem")
		"$bin" "${a[@]}" >"$log" 2>"$log.err" &
	else
		local a=(--no-deprecation server.js --protocol "$version")
		[ "$transport" = plain ] && a+=(--plain)
		[ "$transport" = tls ] && a+=(--cert "$tmp/cert.pem" --key "$tmp/key.pem")
		(cd interop/node && exec node "${a[@]}") >"$log" 2>"$log.err" &
	fi
	pid=$!
	pids+=("$pid")
	for _ in $(seq 100); do [ -s "$log" ] && break; sleep 0.1; done
	local scheme=https
	[ "$transport" = plain ] && scheme=http
	if [ "$server" = spdylab ]; then
		url=$(head -1 "$log")
	else
		url="$scheme://127.0.0.1:$(head -1 "$log" | sed 's/.*"port": *\([0-9]*\).*/\1/')/"
	fi
	[ -n "$url" ] || { echo "$server did not start: $(cat "$log.err")" >&2; exit 1; }
}

stop() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }

dos=$("$bin" conform --list --json | python3 -c 'import json,sys; print(" ".join(c["id"] for c in json.load(sys.stdin) if c.get("class")))')
for server in spdylab node; do
	for vt in spdy/3.1:tls spdy/3:tls spdy/2:plain; do
		version=${vt%:*} transport=${vt#*:}
		tag=$server.${version/\//}.$transport
		start "$server" "$version" "$transport"
		"$bin" conform --json --insecure --version "$version" --path /_spdylab/info --server-pid "$pid" "$url" \
			>"$out/suite.$tag.json" || true
		stop
		for c in $dos; do
			start "$server" "$version" "$transport"
			"$bin" conform --json --insecure --version "$version" --path /_spdylab/info --server-pid "$pid" --case "$c" "$url" \
				>"$out/dos.$tag.$c.json" || true
			stop
		done
	done
done
