package spec

import (
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// TestBoundAndModelReadTheLinksRoundTrip: the lower bound and the load
// model take the round trip the emulator applies (probe.Link.OneWay), so
// a link given by its one-way delays is bounded as the even split of
// their sum, whatever its rtt field says (a store written before
// conflicting delays were refused may hold rtt 100ms with 80ms each way:
// the emulator applied 160ms).
func TestBoundAndModelReadTheLinksRoundTrip(t *testing.T) {
	const ms = time.Millisecond
	m := &page.Manifest{Resources: []page.Resource{
		{ID: 0, Size: 10000, Parent: -1, Discovery: page.Discovery{Kind: page.KindRoot}},
		{ID: 1, Size: 20000, Parent: 0, Discovery: page.Discovery{Kind: page.KindRef, Offset: 1000}},
	}}
	for _, l := range []probe.Link{
		{RTT: 100 * ms, DelayDown: 80 * ms},
		{RTT: 100 * ms, DelayUp: 70 * ms},
		{DelayDown: 30 * ms, DelayUp: 20 * ms},
		{RTT: 100 * ms, DelayDown: 80 * ms, DelayUp: 80 * ms},
	} {
		down, up := l.OneWay()
		c := probe.Condition{TLS: "1.2", Proto: "https", Link: l}
		even := c
		even.Link = probe.Link{RTT: down + up}
		if got, want := LowerBound(m, c), LowerBound(m, even); got != want {
			t.Errorf("%+v: bound %+v, want that of rtt %v: %+v", l, got, down+up, want)
		}
		if got, want := ModelledLoad(m, c), ModelledLoad(m, even); got != want {
			t.Errorf("%+v: modelled load %v, want that of rtt %v: %v", l, got, down+up, want)
		}
	}
}
