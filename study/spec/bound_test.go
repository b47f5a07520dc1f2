package spec

import (
	"math"
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

func TestLowerBoundByHand(t *testing.T) {
	// root 10 kB references a 20 kB script at byte 1000, which loads a
	// 5 kB image on completion after 10 ms of execution.
	m := &page.Manifest{Resources: []page.Resource{
		{ID: 0, Size: 10000, Parent: -1, Discovery: page.Discovery{Kind: page.KindRoot}},
		{ID: 1, Size: 20000, Parent: 0, Discovery: page.Discovery{Kind: page.KindRef, Offset: 1000}},
		{ID: 2, Size: 5000, Parent: 1, Discovery: page.Discovery{Kind: page.KindOnload, Delay: 10 * time.Millisecond}},
	}}
	c := probe.Condition{TLS: "1.2", Link: probe.Link{RTT: 100 * time.Millisecond, DownBps: 1e6}}
	b := LowerBound(m, c)
	// setup 3 RTT = 300; ready(1) = 300+100+8 = 408; ready(2) = 408+100+160+10 = 678;
	// done(2) = 678+100+40 = 818; volume = 300+100+280 = 680.
	want := Bound{SetupMs: 300, ChainMs: 818, VolumeMs: 680, Total: 818, Depth: 3}
	if math.Abs(b.ChainMs-want.ChainMs) > 1e-9 || b.SetupMs != want.SetupMs || math.Abs(b.VolumeMs-want.VolumeMs) > 1e-9 || b.Depth != 3 || b.Total != b.ChainMs {
		t.Errorf("bound %+v, want %+v", b, want)
	}
	// TLS 1.3 with DNS: also 3 setup RTTs.
	c.TLS, c.DNS = "1.3", true
	if got := LowerBound(m, c).SetupMs; got != 300 {
		t.Errorf("setup with DNS and TLS 1.3 = %v, want 300", got)
	}
	// A thin pipe makes volume dominate.
	c.Link.DownBps = 64000
	b = LowerBound(m, c)
	if b.Total != b.VolumeMs || math.Abs(b.VolumeMs-(300+100+35000*8/64000.0*1000)) > 1e-6 {
		t.Errorf("thin pipe bound %+v", b)
	}
}

func TestEstimateScalesWithJobs(t *testing.T) {
	s, err := Builtin("quick")
	if err != nil {
		t.Fatal(err)
	}
	e1, err := EstimateDuration(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	e2, _ := EstimateDuration(s, 2)
	if e1.Probes != 160 || e1.Benches != 16 || e2.Total*2 != e1.Total || e1.PerLoad <= estLoadOverhead {
		t.Errorf("estimates %+v %+v", e1, e2)
	}
}

// A real browser's loads run one at a time (browser benches run alone), so
// more jobs do not shorten them: the fidelity study's estimate keeps at
// least its Chromium loads' overhead in series.
func TestEstimateBrowserLoadsInSeries(t *testing.T) {
	s, err := Builtin("fidelity")
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
	e8, err := EstimateDuration(s, 8)
	if err != nil {
		t.Fatal(err)
	}
	e64, _ := EstimateDuration(s, 64)
	floor := time.Duration(browserLoads) * (estBrowserOverhead + estLoadOverhead)
	if e8.Total < floor || e64.Total < floor {
		t.Errorf("estimates %v at -j 8, %v at -j 64; %d browser loads take at least %v in series", e8.Total, e64.Total, browserLoads, floor)
	}
}

// Every built-in condition's load timeout leaves room above the lower
// bound; with a max_streams limit, each stream-limited round costs at least
// one RTT more.
func TestBuiltinTimeoutsCoverTheBound(t *testing.T) {
	for _, n := range BuiltinNames() {
		s, err := Builtin(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range s.Conditions {
			m, err := page.Open(c.Page, c.Shards, s.Seed, c.ShardMode)
			if err != nil {
				t.Fatal(err)
			}
			need := time.Duration(LowerBound(m, c.Condition).Total * float64(time.Millisecond))
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
