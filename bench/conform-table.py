#!/usr/bin/env python3
"""Tables of bench/conform-dos.sh's results (markdown on stdout).

    bench/conform-table.py OUT

1. per case and version: spdylab's and node-spdy's verdicts (whole suite);
2. per DoS case, each alone against a fresh server process: verdict,
   reaction and memory growth (peak VmRSS sampled every 5 ms, and VmHWM).
"""
import glob
import json
import os
import re
import sys

out = sys.argv[1]
servers = ["spdylab", "node"]
runs = ["spdy3.1.tls", "spdy3.tls", "spdy2.plain"]


def load(path):
    try:
        with open(path) as f:
            return json.load(f) or []
    except (OSError, ValueError):
        return []


def verdict(r):
    if r is None:
        return "(not run)"
    if r.get("skipped"):
        return "skip"
    return "pass" if r["pass"] else "FAIL"


suites = {(s, v): {r["id"]: r for r in load(f"{out}/suite.{s}.{v}.json")} for s in servers for v in runs}
ids = []
for res in suites.values():
    for i in res:
        if i not in ids:
            ids.append(i)
print("| case | section | " + " | ".join(f"{s} {v}" for v in runs for s in servers) + " |")
print("|---|---|" + "---|" * (len(runs) * len(servers)))
for i in ids:
    sec = next((res[i]["section"] for res in suites.values() if i in res and res[i].get("section")), "")
    cells = [verdict(suites[(s, v)].get(i)) for v in runs for s in servers]
    print(f"| {i} | {sec} | " + " | ".join(cells) + " |")
for v in runs:
    for s in servers:
        rs = list(suites[(s, v)].values())
        ran = [r for r in rs if not r.get("skipped")]
        print(f"\n{s} {v}: {sum(r['pass'] for r in ran)} of {len(ran)} pass ({len(rs) - len(ran)} skipped)", end="")
print("\n")


def mib(kib):
    return f"{kib / 1024:.1f}"


print("| DoS case | version | server | verdict | reaction | RSS growth MiB | VmHWM growth MiB | fresh |")
print("|---|---|---|---|---|---|---|---|")
for path in sorted(glob.glob(f"{out}/dos.*.json")):
    s, run, case = re.match(r"dos\.(\w+)\.(spdy[\d.]+\.(?:tls|plain))\.(.+)\.json$", os.path.basename(path)).groups()
    for r in load(path):
        m = r.get("memory") or {}
        if r.get("skipped"):
            continue
        growth = mib(m.get("growth_kib", 0)) if m.get("measured") and not m.get("error") else ("not measured" if not m.get("measured") else "unreadable: " + m["error"])
        hwm = mib(m.get("hwm_growth_kib", 0)) if m.get("measured") and not m.get("error") else "-"
        reaction = (r.get("reaction") or "").replace("|", "/")[:110]
        fresh = "served" if (r.get("fresh") or "").startswith("served") else (r.get("fresh") or "-")[:60]
        v = verdict(r)
        if v == "FAIL" and (r.get("error") or "").startswith("failed on: "):
            v += " (" + r["error"][len("failed on: "):] + ")"
        print(f"| {r['id']} | {run} | {s} | {v} | {reaction} | {growth} | {hwm} | {fresh} |")
