package loader

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// harSpan is an entry's request start and its end, as its HAR says.
type harSpan struct{ send, firstByte, end time.Time }

func harSpans(t *testing.T, h har.Document) []harSpan {
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

// With StyleAfterScripts, what a stylesheet references is requested only
// after the root document's blocking scripts have loaded; without it, as
// soon as the stylesheet is scanned. The scripts are answered 400 ms late
// so that the two orders cannot be confused.
func TestStyleImagesWaitForBlockingScripts(t *testing.T) {
	st := newSite(t, "youtube", 1)
	target := lateServers(t, st, ".js")
	for _, after := range []bool{true, false} {
		res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH2, TLSVersion: "1.3", StyleAfterScripts: after})
		if err != nil {
			t.Fatal(err)
		}
		isScript := func(r page.Resource) bool { return r.Type == page.TypeJS && r.Parent == 0 }
		styled := func(r page.Resource) bool { return r.Parent > 0 && st.m.Resources[r.Parent].Type == page.TypeCSS }
		if waited, by := startedAfter(t, st, checkAgainstManifest(t, st, res), isScript, styled); waited != after {
			t.Errorf("StyleAfterScripts %v: first stylesheet image requested %v after the blocking scripts ended", after, by)
		}
	}
}

// lateServers serves st over h2, answering paths with suffix 400 ms late.
func lateServers(t *testing.T, st *site, suffix string) Target {
	late := func(path string) bool { return strings.HasSuffix(path, suffix) }
	target, _ := goServers(t, st, []string{"h2"}, lateFiles(st, late, 400*time.Millisecond))
	return target
}

// lateFiles is a goServers handler serving st's files, those whose path
// late picks after delay.
func lateFiles(st *site, late func(path string) bool, delay time.Duration) func(string, *hostStats) http.Handler {
	return func(host string, hs *hostStats) http.Handler {
		files := fileHandler(st.dir)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if late(r.URL.Path) {
				time.Sleep(delay)
			}
			files.ServeHTTP(w, r)
		})
	}
}

// startedAfter tells whether the first request of a gated resource
// started after the last blocker had ended (HAR times are rounded to
// microseconds, hence the millisecond of slack), and by how much.
func startedAfter(t *testing.T, st *site, h har.Document, blocker, gated func(page.Resource) bool) (bool, time.Duration) {
	t.Helper()
	var blockersEnd, firstGated time.Time
	for _, e := range h.Log.Entries {
		r := st.m.Resources[*e.ResourceID]
		start, _ := time.Parse(time.RFC3339Nano, e.StartedDateTime)
		switch {
		case blocker(r):
			if end := start.Add(time.Duration(e.Time * float64(time.Millisecond))); end.After(blockersEnd) {
				blockersEnd = end
			}
		case gated(r):
			if firstGated.IsZero() || start.Before(firstGated) {
				firstGated = start
			}
		}
	}
	if firstGated.IsZero() || blockersEnd.IsZero() {
		t.Fatalf("the page has no gated requests (first at %v) or no blockers (ending at %v)", firstGated, blockersEnd)
	}
	return !firstGated.Before(blockersEnd.Add(-time.Millisecond)), firstGated.Sub(blockersEnd)
}

// TestDispatcherBatchSends: requests found together leave together once
// the thread has handed them all over, except the first, which found the
// thread idle; without BatchSends they leave one cost apart, so the
// second's lower bound fails.
func TestDispatcherBatchSends(t *testing.T) {
	const cost, n = 40 * time.Millisecond, 5
	for _, batch := range []bool{false, true} {
		d := &dispatcher{cost: cost, batch: batch}
		start := time.Now()
		left := make([]time.Duration, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				if _, err := d.dispatch(context.Background()); err != nil {
					t.Error(err)
				}
				left[i] = time.Since(start)
			}(i)
			// Queue the calls in order: each goroutine's dispatch takes its
			// place under d.mu before the next starts.
			waitQueued(t, d, start, i+1, cost)
		}
		wg.Wait()
		for i := 1; i < n; i++ {
			want := time.Duration(i+1) * cost
			if batch {
				want = n * cost
			}
			if left[i] < want {
				t.Errorf("batch %v: request %d left after %v, want at least %v", batch, i, left[i], want)
			}
		}
		if batch && left[0] >= left[1] {
			t.Errorf("the first request (found the thread idle) left after %v, not before the batch (%v)", left[0], left[1])
		}
	}
}

// waitQueued waits until the dispatcher holds k requests' costs.
func waitQueued(t *testing.T, d *dispatcher, start time.Time, k int, cost time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Microsecond) {
		d.mu.Lock()
		queued := !d.free.Before(start.Add(time.Duration(k) * cost))
		d.mu.Unlock()
		if queued {
			return
		}
	}
	t.Fatalf("request %d never queued", k)
}

func TestDispatcherBatchWaitEndsWithTheLoad(t *testing.T) {
	d := &dispatcher{cost: time.Hour, batch: true}
	d.free = time.Now().Add(time.Hour) // busy: the next request queues
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.dispatch(ctx); err == nil {
		t.Fatal("a cancelled load's request was dispatched")
	}
}
