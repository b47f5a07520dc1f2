# Late-emulator loads against the on-time loads of their conditions, from
# stored studies' results.db: the judgement of stats.LateShift (median shift
# with its standard error, beyond = past 2% and twice the error) over the
# whole store, then the median shift per (loss, RTT).
#   python3 bench/late-shift.py OUT [OUT...]
import sqlite3,json,statistics,math,sys
from collections import defaultdict
for d in sys.argv[1:]:
    db=sqlite3.connect(f'file:{d}/results.db?mode=ro',uri=True)
    by=defaultdict(lambda:{'on':[],'late':[]}); key={}; n=0; nl=0; stalls=0
    rows=db.execute("select cond_hash,run,attempt,result_json from probes order by cond_hash,run,attempt").fetchall()
    ok=set()
    for h,run,att,r in rows:
        j=json.loads(r)
        if j.get('failed'):
            if 'stalled' in (j.get('error') or ''): stalls+=1
            continue
        if (h,run) in ok: continue
        ok.add((h,run))
        L=j['condition']['link']; key[h]=(L['loss_down'], L['rtt_ns']//1000000)
        l=max(j['link']['down'].get('late_p99_ms',0) or 0, j['link']['up'].get('late_p99_ms',0) or 0)
        n+=1
        if l>1: nl+=1
        by[h]['late' if l>1 else 'on'].append(j['plt_ms'])
    logs=[]
    for h,v in by.items():
        if len(v['on'])>=2:
            m=statistics.median(v['on'])
            logs+= [math.log(p/m) for p in v['late']]
    if not logs: print(d,'no pairs'); continue
    med=statistics.median(logs); mad=statistics.median([abs(x-med) for x in logs])
    se=1.2533*1.4826*mad/math.sqrt(len(logs))
    pct=100*(math.exp(med)-1); sep=100*math.exp(med)*se
    verdict='beyond' if abs(pct)>2 and abs(pct)>2*sep else ('within noise' if abs(pct)>2 else 'no sign')
    cells=defaultdict(list)
    for h,v in by.items():
        if len(v['on'])>=2:
            m=statistics.median(v['on'])
            cells[key[h]]+=[p/m-1 for p in v['late']]
    print(f"{d}: {n} loads, {nl} late ({100*nl/max(n,1):.0f}%), {stalls} stalled attempts; shift {pct:+.1f}% ± {sep:.1f}% over {len(logs)} pairs: {verdict}")
    for k,v in sorted(cells.items()):
        print(f"  loss {k[0]:.3f} rtt {k[1]} ms: {len(v)} pairs, median shift {100*statistics.median(v):+.1f}%")
