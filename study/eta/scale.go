package eta

import "time"

// scaleSet gives each class of load its ratio of actual to modelled time
// (see Model for why per class and how a class with few loads leans
// on its neighbours).
type scaleSet struct {
	class map[class]float64
	sums  map[class]sum // measured, running loads past their estimate included
	proto map[protoKey]sum
	all   sum
	prior float64
}

type protoKey struct {
	serial bool
	proto  string
}

// scales measures the classes at now: the finished loads, plus each
// running load that has already taken longer than its class's estimate,
// counted as if it ended now (it takes at least that long).
func (e *Model) scales(now time.Time, prior float64) (*scaleSet, bool) {
	base := e.measure(nil, prior)
	if base.all.modelled == 0 || base.all.actual == 0 {
		return nil, false
	}
	late := map[class]sum{}
	for _, r := range e.running {
		el := float64(now.Sub(r.start)) / float64(time.Millisecond)
		if r.ms > 0 && el > base.of(r.class)*r.ms {
			s := late[r.class]
			s.actual += el
			s.modelled += r.ms
			s.loads++
			late[r.class] = s
		}
	}
	if len(late) == 0 {
		return base, true
	}
	return e.measure(late, prior), true
}

func (e *Model) measure(extra map[class]sum, prior float64) *scaleSet {
	sc := &scaleSet{class: map[class]float64{}, sums: map[class]sum{}, proto: map[protoKey]sum{}, prior: prior}
	add := func(c class, s sum) {
		t := sc.sums[c]
		t.actual, t.modelled, t.loads = t.actual+s.actual, t.modelled+s.modelled, t.loads+s.loads
		sc.sums[c] = t
		p := sc.proto[protoKey{c.serial, c.proto}]
		p.actual, p.modelled, p.loads = p.actual+s.actual, p.modelled+s.modelled, p.loads+s.loads
		sc.proto[protoKey{c.serial, c.proto}] = p
		sc.all.actual, sc.all.modelled, sc.all.loads = sc.all.actual+s.actual, sc.all.modelled+s.modelled, sc.all.loads+s.loads
	}
	for c, s := range e.classes {
		add(c, *s)
	}
	for c, s := range extra {
		add(c, s)
	}
	return sc
}

// shrink is a measured ratio leaning on a wider one as if that had prior
// loads of its own: a handful of loads say little about the rest.
func shrink(s sum, wider, prior float64) float64 {
	if s.modelled <= 0 {
		return wider
	}
	return (s.loads*s.actual/s.modelled + prior*wider) / (s.loads + prior)
}

// of is class c's ratio: its own loads, else its protocol's nearest
// measured size, on top of its protocol's, on top of all loads'.
func (sc *scaleSet) of(c class) float64 {
	if k, ok := sc.class[c]; ok {
		return k
	}
	k := sc.all.actual / sc.all.modelled
	k = shrink(sc.proto[protoKey{c.serial, c.proto}], k, sc.prior)
	if s, ok := sc.sums[c]; ok && s.modelled > 0 {
		k = shrink(s, k, sc.prior)
	} else if n, ok := sc.nearest(c); ok {
		k = shrink(n, k, sc.prior)
	}
	sc.class[c] = k
	return k
}

// nearest is the measured class of c's protocol closest in size.
func (sc *scaleSet) nearest(c class) (sum, bool) {
	best, found := 0, false
	var out sum
	for o, s := range sc.sums {
		if o.serial != c.serial || o.proto != c.proto || s.modelled <= 0 {
			continue
		}
		d := max(o.size-c.size, c.size-o.size)
		if !found || d < best || d == best && o.size < c.size {
			best, out, found = d, s, true
		}
	}
	return out, found
}
