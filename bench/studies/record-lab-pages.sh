#!/usr/bin/env bash
# Records built-in pages, served by spdylab on loopback, with headless
# Chromium (spdylab record), so a replay of the recording knows its largest
# contentful paint's element. Of the built-in pages only facebook and
# wordpress paint an image as their LCP (the others a text block, which a
# recording names without a resource); their recordings are committed as
# bench/studies/recordings/*-lab.har and used by paint-fidelity.toml.
#
#   bash bench/studies/record-lab-pages.sh [OUTDIR] [PAGE...]
set -euo pipefail
out=${1:-bench/studies/recordings}
shift || true
pages=("$@")
[ ${#pages[@]} -gt 0 ] || pages=(facebook wordpress)
bin=${SPDYLAB:-spdylab}
work=$(mktemp -d)
server=
cleanup() { [ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
sans=DNS:s1.spdylab.test
resolve=()
for i in 1 2 3 4 5 6; do
	sans+=",DNS:s$i.spdylab.test"
	resolve+=(--resolve "s$i.spdylab.test=127.0.0.1:9443")
done
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/k.pem" -out "$work/c.pem" -days 2 \
	-subj /CN=s1.spdylab.test -addext "subjectAltName=$sans" 2>/dev/null
mkdir -p "$out"
for p in "${pages[@]}"; do
	"$bin" page gen "$p" -o "$work/$p" >/dev/null
	"$bin" serve --root "$work/$p" --listen 127.0.0.1:9443 --cert "$work/c.pem" --key "$work/k.pem" >"$work/serve.log" 2>&1 &
	server=$!
	sleep 1
	"$bin" record --proto h2 --trust "$work/c.pem" "${resolve[@]}" https://s1.spdylab.test/ -o "$out/$p-lab.har"
	kill "$server"
	wait "$server" 2>/dev/null || true
	server=
done
