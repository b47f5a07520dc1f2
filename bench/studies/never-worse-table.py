#!/usr/bin/env python3
"""Summarises a never-worse study's gains (OUT/conditions.json of spdylab report) against
#32's goals: cells lost (interval wholly below 1), point estimates at or above a floor, the
mean and geometric mean gain, split into the cells the profile was chosen on (--chosen) and
the others.

  python3 bench/studies/never-worse-table.py OUT/conditions.json --variant spdy/3.1 \
      [--where adaptive_pacing=true] [--floor 1.0] \
      [--chosen 'page=pageC,rtt=20ms,loss=1%,shards=1,rate=10mbit/1mbit' ...] [--looked ... ]

--looked names cells not chosen on whose breakdown was read to find or mend a mechanism (a
findings header's looked-at lines): counted apart from the chosen and the held-out ones.

--where keeps the variant's cells with that factor value (a study with two settings of one
protocol, such as s1-adaptive-pacing.toml).
"""
import argparse, json, math, sys

ap = argparse.ArgumentParser()
ap.add_argument("conditions")
ap.add_argument("--variant", default="spdy/3.1", help="the protocol whose gains are counted")
ap.add_argument("--floor", type=float, default=1.0, help="a point estimate at or above this counts")
ap.add_argument("--chosen", action="append", default=[], help="a cell the profile was chosen on: FACTOR=VALUE,...")
ap.add_argument("--looked", action="append", default=[], help="a cell looked at (not chosen on): FACTOR=VALUE,...")
ap.add_argument("--where", action="append", default=[], help="keep only the variant's cells with FACTOR=VALUE")
ap.add_argument("--worst", type=int, default=5, help="list this many lowest cells")
a = ap.parse_args()

rows = json.load(open(a.conditions))
chosen = [dict(kv.split("=", 1) for kv in c.split(",")) for c in a.chosen]
looked = [dict(kv.split("=", 1) for kv in c.split(",")) for c in a.looked]

def values(r):
    return r.get("values") or r.get("condition_values") or {}

def same(factor, stored, given):
    # A recording is named by its file's base name (page=imdb-2019), wherever
    # --pages put it: the store holds "har:DIR/imdb-2019.har".
    if stored == given:
        return True
    return factor == "page" and stored is not None and stored.startswith("har:") and \
        stored.rsplit("/", 1)[-1].removesuffix(".har") == given

def is_chosen(r):
    return matches(r, chosen)

def is_looked(r):
    return not is_chosen(r) and matches(r, looked)

def matches(r, cells):
    v = values(r)
    return any(all(same(k, v.get(k), val) for k, val in c.items()) for c in cells)

def summary(cells, name):
    gains = [r["gain"] for r in cells if r.get("gain") is not None and r["gain"] > 0]
    lost = sum(1 for r in cells if r.get("significance") == "lost")
    won = sum(1 for r in cells if r.get("significance") == "won")
    und = sum(1 for r in cells if r.get("significance") == "undecided")
    at = sum(1 for g in gains if g >= a.floor)
    mean = sum(gains) / len(gains) if gains else float("nan")
    geo = math.exp(sum(math.log(g) for g in gains) / len(gains)) if gains else float("nan")
    print(f"| {name} | {len(cells)} | {won} | {lost} | {und} | {at} / {len(gains)} | {mean:.2f} | {geo:.2f} |")

where = dict(kv.split("=", 1) for kv in a.where)
cells = [r for r in rows if r.get("protocol", values(r).get("protocol")) == a.variant and r.get("gain") is not None
         and all(values(r).get(k) == v for k, v in where.items())]
if not cells:
    sys.exit(f"no {a.variant} cell with a gain{' where ' + ','.join(a.where) if a.where else ''} in {a.conditions}")
print(f"| cells | n | won | lost | undecided | gain >= {a.floor} | mean gain | geometric mean |")
print("|---|---|---|---|---|---|---|---|")
summary(cells, "all")
if chosen:
    summary([r for r in cells if is_chosen(r)], "chosen on (in sample)")
    if looked:
        summary([r for r in cells if is_looked(r)], "looked at (not chosen on)")
    summary([r for r in cells if not is_chosen(r) and not is_looked(r)], "held out")
print()
varied = sorted(k for k in values(cells[0]) if len({values(r).get(k) for r in cells}) > 1)
for r in sorted(cells, key=lambda r: r["gain"])[: a.worst]:
    v = values(r)
    desc = " ".join(f"{k}={v[k]}" for k in varied)
    lo, hi = r.get("gain_lo"), r.get("gain_hi")
    ci = f"[{lo:.2f}, {hi:.2f}]" if lo is not None and hi is not None else "(no interval)"
    print(f"- {r['gain']:.2f} {ci} {r.get('significance')}{' (chosen on)' if is_chosen(r) else ' (looked at)' if is_looked(r) else ''}: {desc}")
