package loader

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// harSpan is an entry's request start and its end, as its HAR says.
type harSpan struct{ send, firstByte, end time.Time }

func harSpans(t *testing.T, h HAR) []harSpan {
	t.Helper()
	var out []harSpan
	for _, e := range h.Log.Entries {
		start, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
		if err != nil {
			t.Fatal(err)
		}
		ms := func(v float64) time.Duration { return time.Duration(max(v, 0) * float64(time.Millisecond)) }
		tm := e.Timings
		send := start.Add(ms(tm.Blocked) + ms(tm.DNS) + ms(tm.Connect))
		fb := send.Add(ms(tm.Send) + ms(tm.Wait))
		out = append(out, harSpan{send: send, firstByte: fb, end: start.Add(ms(e.Time))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].send.Before(out[j].send) })
	return out
}

// The commit delay holds the page's first subresource request until that
// long after the document's first byte; the dispatch cost spaces requests
// found together (h2) and a freed HTTP/1.1 connection's next request (one
// connection) at least one cost apart. Without the mechanisms the
// requests leave together, so each bound fails.
func TestRendererCosts(t *testing.T) {
	const commit, cost = 150 * time.Millisecond, 15 * time.Millisecond
	const slack = time.Millisecond // HAR times are rounded to microseconds
	st := newSite(t, "generic:n=12,mean=2k,depth=1", 1)
	for _, proto := range []string{probe.ProtoH2, probe.ProtoHTTPS} {
		alpn := map[string]string{probe.ProtoH2: "h2", probe.ProtoHTTPS: "http/1.1"}[proto]
		target, _ := goServers(t, st, []string{alpn}, nil)
		o := Options{Proto: proto, TLSVersion: "1.3", MaxConnsPerHost: 1,
			Renderer: RendererCosts{CommitDelay: commit, DispatchCost: cost}}
		res, err := Load(context.Background(), target, o)
		if err != nil {
			t.Fatalf("%s: %v", proto, err)
		}
		spans := harSpans(t, checkAgainstManifest(t, st, res))
		root := spans[0]
		if d := spans[1].send.Sub(root.firstByte); d < commit-slack {
			t.Errorf("%s: first subresource sent %v after the document's first byte, want at least the %v commit delay", proto, d, commit)
		}
		// Summed over the requests, so that one write's jitter cannot hide
		// or fake a cost.
		var idle time.Duration
		for i := 2; i < len(spans); i++ {
			after := spans[i-1].send
			if proto == probe.ProtoHTTPS {
				after = spans[i-1].end // one connection: the previous exchange must end first
			}
			idle += spans[i].send.Sub(after)
		}
		if want := time.Duration(len(spans)-2) * cost; idle < want-slack {
			t.Errorf("%s: %d requests spent %v between them, want at least %v (%v each)", proto, len(spans)-2, idle, want, cost)
		}
	}
}
