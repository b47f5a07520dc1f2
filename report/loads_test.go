package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// spdylab load's summary gives both sides' retransmits: the median per load.
func TestLoadSummaryRetransmitsOfBothSides(t *testing.T) {
	var rs []probe.Result
	for i, server := range []uint32{9, 1, 5} {
		rs = append(rs, probe.Result{Run: i, PLTms: 100, ToWms: 90,
			TCP:       []probe.TCPInfo{{Retransmits: 1}, {Retransmits: 1}},
			ServerTCP: probe.NewServerTCP([]probe.TCPInfo{{Retransmits: server}, {Retransmits: 0}})})
	}
	rs = append(rs, probe.Result{Failed: true, Error: "x", ServerTCP: probe.NewServerTCP([]probe.TCPInfo{{Retransmits: 100}})})
	s := SummarizeLoads("pageA", probe.ProtoHTTPS, probe.Condition{}, rs)
	if s.Retransmits != 2 || s.ServerRetransmits != 5 {
		t.Errorf("client %v, server %v; want 2 and 5 (failed loads left out)", s.Retransmits, s.ServerRetransmits)
	}
	var out bytes.Buffer
	s.Print(&out)
	if !strings.Contains(out.String(), "retransmits client 2 / server 5") {
		t.Errorf("summary:\n%s", out.String())
	}
}

// A load that stalled on retransmission timeouts says so on its run line,
// with the link's drops beside them; a load without timeouts keeps the
// plain line.
func TestRunLineNamesTimeouts(t *testing.T) {
	plain := probe.Result{Condition: probe.Condition{Proto: probe.ProtoSPDY31}, PLTms: 900, ToWms: 650, Connections: 1,
		TCP: []probe.TCPInfo{{Retransmits: 1}}, ServerTCP: probe.NewServerTCP([]probe.TCPInfo{{Retransmits: 40}})}
	if got := RunLine(plain, 0, 5); strings.Contains(got, "timeouts") || !strings.HasPrefix(got, "run 1/5 spdy/3.1 PLT    900.0 ms") {
		t.Errorf("plain load: %q", got)
	}
	stalled := plain
	stalled.PLTms = 51400
	stalled.TCP = []probe.TCPInfo{{RTOs: 1, RTOTimems: 1000}}
	stalled.ServerTCP = probe.NewServerTCP([]probe.TCPInfo{{RTOs: 7, RTOTimems: 48200}})
	stalled.Link.Down.PktsQueueDrop, stalled.Link.Up.PktsLost = 40, 2
	want := "timeouts 8 (49.2 s recovering), link drops 42"
	if got := RunLine(stalled, 0, 5); !strings.HasSuffix(got, want) {
		t.Errorf("stalled load: %q, want it to end with %q", got, want)
	}
}

// spdylab load's summary ends with the answer a report opens with, for
// its one cell: the verdict, the gain and the largest critical-path term.
func TestLoadAnswerIsTheReportsSentence(t *testing.T) {
	loads := func(plt, rtt float64) []probe.Result {
		var rs []probe.Result
		for i := 0; i < 6; i++ {
			d := float64(i-3) * 4
			rs = append(rs, probe.Result{Run: i, PLTms: plt + d, ToWms: plt - 100 + d,
				Breakdown: &probe.Breakdown{Ms: map[string]float64{probe.CatRTT: rtt + d, probe.CatTransfer: plt - rtt}}})
		}
		return rs
	}
	base := SummarizeLoads("pageA", probe.ProtoHTTPS, probe.Condition{}, loads(1000, 400))
	h2 := SummarizeLoads("pageA", probe.ProtoH2, probe.Condition{}, loads(800, 200))
	h2.CompareWith(base)
	got := LoadAnswer([]LoadSummary{base, h2})
	for _, want := range []string{"For PLT: h2 against https won 1 cell, lost 0 and left 0 undecided",
		"Its one cell: h2 at pageA, gain 1.25", "(won)", "mostly 200 ms less request round trips on the critical path than https"} {
		if !strings.Contains(got, want) {
			t.Errorf("load's answer %q lacks %q", got, want)
		}
	}
	if LoadAnswer([]LoadSummary{base}) != "" {
		t.Error("one protocol alone has an answer")
	}
}

// load --metric lcp: the gain, its line and the answer are LCP's, the
// critical path ends at the LCP element's resource, and a load without
// LCP is left out and counted, not zero.
func TestLoadSummaryInLCP(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	loads := func(lcp float64) []probe.Result {
		var rs []probe.Result
		for i := 0; i < 6; i++ {
			d := float64(i-3) * 2
			l := lcp + d
			r := probe.Result{Run: i, PLTms: 1000 + d, ToWms: 900 + d, HAR: paintHAR(t, t0, lcp-20-435), Started: t0,
				Paint: &probe.Paint{LCPms: &l, LCPURL: "https://" + paintHost + "/c.jpg", LCPElement: "IMG"}}
			rs = append(rs, r)
		}
		rs[0].Paint = nil
		return rs
	}
	judge := LoadJudge{Metric: probe.Metrics[3], Manifest: paintManifest()}
	if judge.Metric.Name != probe.MetricLCP {
		t.Fatal("probe.Metrics[3] is not LCP")
	}
	base := SummarizeLoadsWith("pageA", probe.ProtoHTTPS, probe.Condition{}, loads(900), judge)
	h2 := SummarizeLoadsWith("pageA", probe.ProtoH2, probe.Condition{}, loads(600), judge)
	h2.CompareWith(base)
	if h2.Against == nil || h2.Against.Metric != probe.MetricLCP || *h2.Against.Gain < 1.45 || *h2.Against.Gain > 1.55 || len(h2.MetricMs) != 5 {
		t.Fatalf("h2 against https in LCP: %+v over %d loads, want a gain of 1.5 over 5 (PLTs are equal)", h2.Against, len(h2.MetricMs))
	}
	if len(h2.CritPath) == 0 {
		t.Error("no critical path ending at the LCP element's resource")
	}
	var out bytes.Buffer
	h2.Print(&out)
	if !strings.Contains(out.String(), "LCP gain vs https: 1.5") {
		t.Errorf("the summary's gain line is not LCP's:\n%s", out.String())
	}
	got := LoadAnswer([]LoadSummary{base, h2})
	for _, want := range []string{"For LCP: h2 against https won 1 cell", "2 of 12 successful loads have no LCP"} {
		if !strings.Contains(got, want) {
			t.Errorf("load's answer %q lacks %q", got, want)
		}
	}
}
