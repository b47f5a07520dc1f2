#!/bin/sh
# Replays of real pages: every recording in a folder is imported (timed),
# then loaded once per protocol through one emulated link, and each load's
# HAR is checked against the imported manifest: every replayable resource
# fetched exactly once, at its size.
# Link: 20 Mbit/s down, 5 Mbit/s up, 40 ms RTT, 50-packet queues, CUBIC,
# DNS across the link. Needs root (network namespaces) and python3 (to read
# the HARs).
# Usage: bench/replay-corpus.sh [path/to/spdylab] [folder of .har] [protocols]
# CLIENT=chromium loads with real headless Chromium instead of the loader
# (give protocols it speaks: h2, https, h3); its HAR counts bytes its own
# way, so only the fetched counts are compared then, and the share of
# replayable URLs it requested at all (host+path+query, each manifest
# resource once) is shown too.
# NOLINK=1 loads over loopback (--no-link: no root, no emulated link, each
# host at its own 127.1.x.y); TIMEOUT (default 120s) bounds one load;
# KEEP=DIR keeps the imported sites, HARs and errors there.
set -eu
BIN=${1:-./bin/spdylab}
DIR=${2:-../shared/pages/har}
PROTOS=${3:-https,spdy/3.1,h2,h3}
CLIENT=${CLIENT:-loader}
TIMEOUT=${TIMEOUT:-120s}
LINK="--down 20mbit --up 5mbit --rtt 40ms --queue 50pkt --cc cubic"
if [ "${NOLINK:-0}" = 1 ]; then
	LINK=--no-link
fi
if [ -n "${KEEP:-}" ]; then # keep the imports, HARs and errors in $KEEP
	WORK=$KEEP
	mkdir -p "$WORK"
else
	WORK=$(mktemp -d)
	trap 'rm -rf "$WORK"' EXIT INT TERM
fi
printf '%-22s %8s %10s %6s %5s %9s  %s\n' page recorded replayable hosts depth import_ms "fetched/replayable, bytes ok, PLT ms per protocol"
for har in "$DIR"/*.har; do
	name=$(basename "$har" .har)
	start=$(date +%s%N)
	if ! "$BIN" page import "$har" -o "$WORK/$name" >"$WORK/$name.import" 2>&1; then
		printf '%-22s import failed: %s\n' "$name" "$(tail -1 "$WORK/$name.import")"
		continue
	fi
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	# "wrote DIR from har:...: N entries recorded, R replayable, H hosts, depth D, B bytes"
	stats=$(head -1 "$WORK/$name.import" | sed -n 's/.*: \([0-9]*\) entries recorded, \([0-9]*\) replayable, \([0-9]*\) hosts, depth \([0-9]*\),.*/\1 \2 \3 \4/p')
	"$BIN" load --client "$CLIENT" --page "$WORK/$name/manifest.json" --proto "$PROTOS" --runs 1 --json \
		$LINK --timeout "$TIMEOUT" \
		--work-dir "$WORK/cache" --har "$WORK/$name.hars" >"$WORK/$name.jsonl" 2>"$WORK/$name.err" || true
	checks=$(CLIENT=$CLIENT python3 - "$WORK/$name/manifest.json" "$WORK/$name.hars" "$WORK/$name.jsonl" <<'PY'
import json, sys, glob, os, collections
m = json.load(open(sys.argv[1]))
want = collections.Counter()
size = {}
for r in m["resources"]:
    t = r["path"] + ("?" + r["query"] if r.get("query") else "")
    want[(r["host"], t)] += 1
    size[(r["host"], t)] = r["size"]
plt = {}
for line in open(sys.argv[3]):
    d = json.loads(line)
    plt[d["proto"]] = "%.0f" % d["plt_median_ms"] if d["failed"] == 0 else "FAILED(%s)" % (d.get("errors") or ["?"])[0][:160]
out = []
for f in sorted(glob.glob(os.path.join(sys.argv[2], "*.har"))):
    proto = os.path.basename(f).split("-run")[0].rsplit("-", 1)[-1].replace("_", "/")
    got = collections.Counter()
    bad = 0
    for e in json.load(open(f))["log"]["entries"]:
        u = e["request"]["url"].split("://", 1)[1]
        host, _, t = u.partition("/")
        key = (host.split(":")[0], "/" + t)  # Chromium's page URL names its port
        got[key] += 1
        if os.environ.get("CLIENT") == "loader" and key in size and e["response"].get("bodySize", -1) != size[key] and e["response"].get("status") == 200:
            bad += 1
    once = sum(1 for k in want if got[k] == 1)
    col = "%s %d/%d %s %s" % (proto, once, len(want), "ok" if bad == 0 else "%d-wrong-sizes" % bad, plt.get(proto, "?"))
    if os.environ.get("CLIENT") != "loader":
        asked = sum(1 for k in want if got[k] >= 1)
        col += " requested %d/%d %.1f%%" % (asked, len(want), 100.0 * asked / len(want))
    out.append(col)
print("  ".join(out))
PY
)
	printf '%-22s %8s %10s %6s %5s %9s  %s\n' "$name" $stats "$ms" "$checks"
done
