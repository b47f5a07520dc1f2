package spec_test

import (
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/studyfile"
)

func TestEstimateScalesWithJobs(t *testing.T) {
	s, err := studyfile.Builtin("quick")
	if err != nil {
		t.Fatal(err)
	}
	e1, err := spec.EstimateDuration(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	e2, _ := spec.EstimateDuration(s, 2)
	if e1.Probes != 160 || e1.Benches != 16 || e2.Total*2 != e1.Total || e1.PerLoad <= spec.EstLoadOverhead {
		t.Errorf("estimates %+v %+v", e1, e2)
	}
}

// A real browser's loads run one at a time (browser benches run alone), so
// more jobs do not shorten them: the fidelity study's estimate keeps at
// least its Chromium loads' overhead in series.
func TestEstimateBrowserLoadsInSeries(t *testing.T) {
	s, err := studyfile.Builtin("fidelity")
	if err != nil {
		t.Fatal(err)
	}
	browserLoads := 0
	for _, c := range s.Conditions {
		if cl, _ := probe.LookupClient(c.Client); cl.Browser {
			browserLoads += s.Runs
		}
	}
	if browserLoads == 0 {
		t.Fatal("the fidelity study has no browser conditions")
	}
	e8, err := spec.EstimateDuration(s, 8)
	if err != nil {
		t.Fatal(err)
	}
	e64, _ := spec.EstimateDuration(s, 64)
	floor := time.Duration(browserLoads) * (spec.EstBrowserOverhead + spec.EstLoadOverhead)
	if e8.Total < floor || e64.Total < floor {
		t.Errorf("estimates %v at -j 8, %v at -j 64; %d browser loads take at least %v in series", e8.Total, e64.Total, browserLoads, floor)
	}
}

// Every built-in condition's load timeout leaves room above the lower
// bound; with a max_streams limit, each stream-limited round costs at least
// one RTT more.
func TestBuiltinTimeoutsCoverTheBound(t *testing.T) {
	for _, n := range studyfile.BuiltinNames() {
		s, err := studyfile.Builtin(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range s.Conditions {
			m, err := page.Open(c.Page, c.Shards, s.Seed, c.ShardMode)
			if err != nil {
				t.Fatal(err)
			}
			need := time.Duration(spec.LowerBound(m, c.Condition).Total * float64(time.Millisecond))
			if c.MaxStreams > 0 {
				rounds := (len(m.Resources) + c.MaxStreams - 1) / c.MaxStreams
				need += time.Duration(rounds) * c.Link.RTT
			}
			timeout := c.Timeout
			if timeout == 0 {
				timeout = 60 * time.Second
			}
			if need*2 > timeout {
				t.Errorf("%s: %s needs at least %v, timeout %v", n, c.Describe(), need, timeout)
			}
		}
	}
}
