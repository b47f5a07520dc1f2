#!/usr/bin/env python3
"""How much gain a study's cells leave to win: per cell, the baseline's median PLT over the
page's lower bound on that link (report's lower_bound_ms, study/spec/bound.go: the setup's round
trips, then the longer of the dependency chain and every byte at the link's rate), the most any
protocol could gain there; beside it the variant's gain and its own PLT over the bound.

  python3 bench/studies/gain-ceiling.py OUT/conditions.json --variant spdy/3.1 [--under 1.5] [--list]

The baseline is the report's (conditions.json's variant whose gain is 1 by definition: the rows
of the study's [baseline]); the variant is matched to it cell by cell on the factors both share.
"""
import argparse, json, math

ap = argparse.ArgumentParser()
ap.add_argument("conditions")
ap.add_argument("--variant", default="spdy/3.1", help="the protocol whose gains are shown")
ap.add_argument("--under", type=float, default=1.5, help="count the cells whose ceiling is under this")
ap.add_argument("--list", action="store_true", help="list every cell, lowest ceiling first")
a = ap.parse_args()

rows = json.load(open(a.conditions))
CELL = ("page", "shards", "rate", "rtt", "loss")

def cell(r):
    return tuple(r["values"].get(k) for k in CELL)

base = {cell(r): r for r in rows if r.get("gain") is None}
if not base:
    raise SystemExit(f"{a.conditions}: no baseline rows (rows without a gain)")
var = {}
for r in rows:
    if r["values"].get("protocol") == a.variant and r.get("gain"):
        if cell(r) in var:
            raise SystemExit(f"{a.conditions}: {a.variant} has more than one condition in cell "
                             f"{dict(zip(CELL, cell(r)))}: this script compares one setting per cell")
        var[cell(r)] = r
cells = []
for k, b in base.items():
    v = var.get(k)
    if v is None or not b.get("lower_bound_ms") or not v.get("lower_bound_ms"):
        continue
    cells.append((k, b["plt_median_ms"] / b["lower_bound_ms"], v["gain"], v["plt_median_ms"] / v["lower_bound_ms"]))
if not cells:
    raise SystemExit(f"{a.conditions}: no {a.variant} cell pairs with a lower bound")

def gmean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))

ceil = [c[1] for c in cells]
print(f"{len(cells)} cells; ceiling (baseline PLT / lower bound): mean {sum(ceil)/len(ceil):.2f}, "
      f"geometric {gmean(ceil):.2f}; under {a.under}: {sum(c < a.under for c in ceil)}, under 1.1: {sum(c < 1.1 for c in ceil)}")
gains = [c[2] for c in cells]
print(f"{a.variant}: mean gain {sum(gains)/len(gains):.2f}, geometric {gmean(gains):.2f}; "
      f"its PLT / lower bound: geometric {gmean([c[3] for c in cells]):.2f}")
if a.list:
    for k, c, g, own in sorted(cells, key=lambda c: c[1]):
        print("  " + " ".join(f"{n}={v}" for n, v in zip(CELL, k)) + f"  ceiling {c:.2f}  gain {g:.2f}  own {own:.2f}")
