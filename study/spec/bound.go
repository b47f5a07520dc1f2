package spec

import (
	"fmt"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// Bound is a page load time no protocol can beat on a condition's link,
// with its parts (all in milliseconds).
//
// With R the RTT, B the bottleneck's down rate in bit/s, s(i) the size of
// resource i and o(i) the byte offset of its reference in its parent p:
//
//	setup   = (1 if DNS) + 1 (TCP) + (2 for TLS 1.2 | 1 for TLS 1.3)   RTTs
//	ready(root) = setup
//	ready(i)    = ready(p) + R + 8*o(i)/B + delay(i)   referenced in p's bytes
//	            = ready(p) + R + 8*s(p)/B + delay(i)   requested when p completes
//	done(i)     = ready(i) + R + 8*s(i)/B
//	chain       = max over i of done(i)   (the longest discovery chain, with
//	              the transmission of the bytes each step must wait for)
//	volume      = setup + R + 8*sum(s)/B   (every byte crosses the bottleneck once)
//	bound       = max(chain, volume)
//
// Each term is a time no real load can undercut: a request needs a round
// trip, a byte needs its serialisation time, a reference cannot be followed
// before it has arrived. Headers, TLS records, TCP slow start and losses
// only add to it, so PLT / bound says how much a protocol leaves on the table.
type Bound struct {
	SetupMs  float64
	ChainMs  float64
	VolumeMs float64
	Total    float64
	Depth    int // resources on the longest chain
}

// LowerBound computes the bound for a manifest on a condition's link.
func LowerBound(m *page.Manifest, c probe.Condition) Bound {
	rtt := float64(c.Link.RoundTrip()) / float64(time.Millisecond)
	if c.NoLink {
		rtt = 0
	}
	xmit := func(bytes int) float64 { // ms to serialise bytes at the down rate
		if c.Link.DownBps <= 0 || c.NoLink {
			return 0
		}
		return float64(bytes) * 8 / float64(c.Link.DownBps) * 1000
	}
	rtts := 1.0
	if c.DNS {
		rtts++
	}
	if c.TLS == probe.TLS13 {
		rtts++
	} else {
		rtts += 2
	}
	b := Bound{SetupMs: rtts * rtt}
	n := len(m.Resources)
	ready := make([]float64, n)
	depth := make([]int, n)
	done := make([]bool, n)
	var at func(i, guard int) float64
	at = func(i, guard int) float64 {
		if done[i] {
			return ready[i]
		}
		r := m.Resources[i]
		if r.Parent < 0 || r.Parent >= n || guard > n {
			ready[i], depth[i] = b.SetupMs, 1
		} else {
			p := m.Resources[r.Parent]
			pr := at(r.Parent, guard+1)
			wait := r.Discovery.Offset
			if r.Discovery.Kind == page.KindOnload {
				wait = p.Size
			}
			ready[i] = pr + rtt + xmit(wait) + float64(r.Discovery.Delay)/float64(time.Millisecond)
			depth[i] = depth[r.Parent] + 1
		}
		done[i] = true
		return ready[i]
	}
	total := 0
	for i, r := range m.Resources {
		total += r.Size
		d := at(i, 0) + rtt + xmit(r.Size)
		if d > b.ChainMs {
			b.ChainMs, b.Depth = d, depth[i]
		}
	}
	b.VolumeMs = b.SetupMs + rtt + xmit(total)
	b.Total = max(b.ChainMs, b.VolumeMs)
	return b
}

// Estimate is the planned duration of a study: a model, not a promise.
type Estimate struct {
	Probes  int
	Benches int
	PerLoad time.Duration // mean over the study's conditions
	Total   time.Duration // with jobs parallel benches
}

// estBenchOverhead is building and checking a testbed, per bench, in the
// estimate: a rough figure from runs on a 2-core machine.
const estBenchOverhead = 3 * time.Second

// EstimateDuration models how long running s takes with jobs parallel
// benches: per load, ModelledLoad (loadmodel.go), times the loads, plus
// the bench setups, divided over the jobs. A real browser's loads add their
// own overhead and do not divide: spdylab run runs browser benches alone
// by default (study.Runner.BrowserAlone), one at a time.
func EstimateDuration(s *Study, jobs int) (Estimate, error) {
	return EstimateWith(s, jobs, page.Cache{})
}

// EstimateWith is EstimateDuration with the study's pages opened in (or
// taken from) pages.
func EstimateWith(s *Study, jobs int, pages page.Cache) (Estimate, error) {
	jobs = max(jobs, 1)
	var parallelSum, browserSum time.Duration
	for _, c := range s.Conditions {
		m, err := pages.Open(c.Page, c.Shards, s.Seed, c.ShardMode)
		if err != nil {
			return Estimate{}, fmt.Errorf("page %s: %w", c.Page, err)
		}
		if page.MethodChanges(c.Condition) { // the page its benches load
			if m, _, err = m.ApplyMethod(c.Condition); err != nil {
				return Estimate{}, err
			}
		}
		if cl, _ := probe.LookupClient(c.Client); cl.Browser {
			browserSum += ModelledLoad(m, c.Condition) + estBrowserOverhead
		} else {
			parallelSum += ModelledLoad(m, c.Condition)
		}
	}
	e := Estimate{Probes: len(s.Conditions) * s.Runs, Benches: len(Groups(s))}
	e.PerLoad = (parallelSum + browserSum) / time.Duration(len(s.Conditions))
	parallel := parallelSum*time.Duration(s.Runs) + time.Duration(e.Benches)*estBenchOverhead
	e.Total = parallel/time.Duration(jobs) + browserSum*time.Duration(s.Runs)
	return e, nil
}

// ManifestKey names the page a condition loads (the page cache's key).
func ManifestKey(c probe.Condition) string { return page.CacheKey(c.Page, c.Shards, c.ShardMode) }
