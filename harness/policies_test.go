package harness

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/spdy"
)

// harPriorities are the _priority values of a HAR's entries.
func harPriorities(t *testing.T, har []byte) []int {
	t.Helper()
	var doc struct {
		Log struct {
			Entries []struct {
				Priority *int `json:"_priority"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(har, &doc); err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range doc.Log.Entries {
		if e.Priority != nil {
			out = append(out, *e.Priority)
		}
	}
	return out
}

// The priority and scheduler factors reach a load: a no-link bench with
// the FIFO scheduler and no priorities loads pageA over SPDY, its servers
// run the FIFO scheduler, every request carried priority 3, and the
// result's condition names both.
func TestNoLinkBenchWithPriorityPolicies(t *testing.T) {
	c := probe.Condition{Page: "pageA", Shards: 2, NoLink: true, Scheduler: probe.SchedulerFIFO, Priority: probe.PriorityNone}
	if cfg, err := serverSPDY(c); err != nil || cfg.Scheduler != spdy.ScheduleFIFO || cfg.RampFrames {
		t.Fatalf("servers' SPDY scheduler %v (%v), want fifo", cfg.Scheduler, err)
	}
	b := openBench(t, c, Options{})
	for _, proto := range []string{probe.ProtoSPDY31, probe.ProtoSPDY2} {
		r := b.Load(context.Background(), proto, 0)
		if r.Failed {
			t.Fatalf("%s: %s", proto, r.Error)
		}
		if r.Condition.Scheduler != probe.SchedulerFIFO || r.Condition.Priority != probe.PriorityNone {
			t.Errorf("%s: result's condition has scheduler %q, priority %q", proto, r.Condition.Scheduler, r.Condition.Priority)
		}
		prios := harPriorities(t, r.HAR)
		if len(prios) != r.Resources {
			t.Errorf("%s: %d HAR priorities for %d resources", proto, len(prios), r.Resources)
		}
		for _, p := range prios {
			if p != 3 {
				t.Fatalf("%s: a request with priority %d under policy none", proto, p)
			}
		}
	}
	d := probe.Condition{Page: "pageA", Priority: probe.PriorityDepth}
	if cfg, err := serverSPDY(d); err != nil || cfg.Scheduler != spdy.SchedulePriority {
		t.Errorf("default scheduler: %v (%v)", cfg.Scheduler, err)
	}
}

// The TLS factors reach a load. A cold load starts with an empty session
// cache: each host's first handshake is full and seeds it, and with
// tls_resume later connections to the host resume (HTTPS opens several per
// host). h3 holds one connection per host, so a cold h3 load with
// early_data has no ticket to send 0-RTT with: every handshake is full.
func TestNoLinkBenchWithTLSResumeAndEarlyData(t *testing.T) {
	c := probe.Condition{Page: "pageA", Shards: 2, NoLink: true, TLS: probe.TLS13, TLSResume: true}
	r := openBench(t, c, Options{}).Load(context.Background(), probe.ProtoHTTPS, 0)
	if r.Failed {
		t.Fatal(r.Error)
	}
	if !r.Condition.TLSResume || r.TLS.Full < 1 || r.TLS.Resumed < 1 || r.TLS.RoundTrips != r.TLS.Full+r.TLS.Resumed {
		t.Errorf("https with tls_resume: %d connections, handshakes %+v, condition %+v", r.Connections, r.TLS, r.Condition)
	}
	c.EarlyData = true
	b := openBench(t, c, Options{})
	if r := b.Load(context.Background(), probe.ProtoHTTPS, 0); !r.Failed || !strings.Contains(r.Error, "today h3") {
		t.Errorf("https load on an early_data bench: failed %v, %q; want the reason", r.Failed, r.Error)
	}
	r = b.Load(context.Background(), probe.ProtoH3, 1)
	if r.Failed {
		t.Fatal(r.Error)
	}
	if want := (probe.TLSHandshakes{Full: r.Connections, RoundTrips: r.Connections}); r.TLS != want || !r.Condition.EarlyData {
		t.Errorf("cold h3 load with early_data: %d connections, handshakes %+v (want %+v), condition %+v", r.Connections, r.TLS, want, r.Condition)
	}
}
