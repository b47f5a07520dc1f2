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
