package browser

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"testing"

	"github.com/spdylab/spdylab/probe"
)

// batch is a Tracing.dataCollected event holding events.
func batch(events string) cdpEvent {
	return cdpEvent{Method: "Tracing.dataCollected", Params: json.RawMessage(`{"value":[` + events + `]}`)}
}

// A renderer main thread's nested tasks merge into their outermost, named
// by it and by the first URL inside; a compositor thread's tasks, the
// blank tab's before navigation and unmatched ends are left out.
func TestTraceReducesToMainThreadBusyIntervals(t *testing.T) {
	tr := newTracer()
	// navigation at 10 s on the trace's clock (10e6 µs)
	tr.handle(batch(`{"ph":"M","name":"thread_name","pid":7,"tid":1,"args":{"name":"CrRendererMain"}},
		{"ph":"M","name":"thread_name","pid":7,"tid":2,"args":{"name":"Compositor"}},
		{"ph":"X","name":"ParseHTML","pid":7,"tid":1,"ts":9990000,"dur":5000,"args":{"beginData":{"url":"about:blank"}}},
		{"ph":"B","name":"ParseHTML","pid":7,"tid":1,"ts":10010000,"args":{"beginData":{"url":"https://s1/index.html"}}},
		{"ph":"X","name":"EvaluateScript","pid":7,"tid":1,"ts":10012000,"dur":300000,"args":{"data":{"url":"https://s1/a.js"}}},
		{"ph":"E","name":"ParseHTML","pid":7,"tid":1,"ts":10320000},
		{"ph":"E","name":"ParseHTML","pid":7,"tid":1,"ts":10330000},
		{"ph":"X","name":"Layout","pid":7,"tid":2,"ts":10400000,"dur":9000},
		{"ph":"X","name":"TimerFire","pid":7,"tid":1,"ts":10400000,"dur":2500,"args":{"data":{}}}`))
	tr.handle(cdpEvent{Method: "Tracing.tracingComplete", Params: json.RawMessage(`{}`)})
	tr.handle(cdpEvent{Method: "Tracing.tracingComplete", Params: json.RawMessage(`{}`)}) // twice: no panic
	got := tr.busy(10)
	if len(got) != 2 {
		t.Fatalf("%d intervals, want 2: %+v", len(got), got)
	}
	if a := got[0]; a.StartMs != 10 || a.EndMs != 320 || a.What != "ParseHTML" || a.URL != "https://s1/index.html" {
		t.Errorf("first interval %+v, want ParseHTML of the page 10-320 ms", a)
	}
	if b := got[1]; b.StartMs != 400 || b.EndMs != 402.5 || b.What != "TimerFire" || b.URL != "" {
		t.Errorf("second interval %+v, want TimerFire 400-402.5 ms", b)
	}
}

func TestTraceBatchThatDoesNotDecodeIsNamed(t *testing.T) {
	tr := newTracer()
	tr.handle(cdpEvent{Method: "Tracing.dataCollected", Params: json.RawMessage(`{"value":{}}`)})
	if tr.decoded == nil {
		t.Fatal("a batch that is not a list decoded")
	}
}

func FuzzTraceBatch(f *testing.F) {
	f.Add([]byte(`{"value":[{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"CrRendererMain"}},{"ph":"B","pid":1,"tid":1,"ts":5},{"ph":"E","pid":1,"tid":1,"ts":9},{"ph":"X","pid":1,"tid":1,"ts":1,"dur":20,"args":{"data":{"url":"u"}}}]}`))
	f.Add([]byte(`{"value":[{"ph":"E","pid":1,"tid":1,"ts":-1e308},{"ph":"X","dur":-5,"args":7}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr := newTracer()
		tr.handle(cdpEvent{Method: "Tracing.dataCollected", Params: b})
		prev := -1e308
		for _, iv := range tr.busy(0) {
			if iv.EndMs < iv.StartMs || iv.StartMs < prev {
				t.Fatalf("intervals not disjoint and in order: %+v", tr.busy(0))
			}
			prev = iv.EndMs
		}
	})
}

// TestTraceFollowsThePagesRendererOnly: a traced load of a page without
// frames of its own has one renderer's main thread in its trace. Traced
// from the browser's DevTools session, Chromium traced every process: the
// new-tab page it preloads and its spare renderers too (three or four
// renderers in every load), and it held Tracing.start until each had
// started tracing, 10 s in about every other load (BENCHMARKS.md).
func TestTraceFollowsThePagesRendererOnly(t *testing.T) {
	requireChromium(t)
	site := newLabSite(t, "pageA", 2)
	pageURL, resolve := site.serveLoopback(t, 0)
	var renderers []int
	tracedHook = func(n int) { renderers = append(renderers, n) }
	defer func() { tracedHook = nil }()
	res, err := Load(context.Background(), Options{URL: pageURL, Proto: probe.ProtoH2, TLSVersion: "1.3", Resolve: resolve,
		TrustCerts: []*x509.Certificate{site.ca}, Manifest: site.m, TraceMainThread: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.MainThread) == 0 {
		t.Fatal("the traced load has no main-thread intervals")
	}
	if len(renderers) != 1 || renderers[0] != 1 {
		t.Errorf("the trace holds the main threads of %v renderer processes, want the page's one", renderers)
	}
}
