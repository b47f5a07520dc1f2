package main

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/studyfile"
)

// `spdylab load` with no condition flags loads what a one-cell study of
// the same page and protocol does: both read probe.Fields.
func TestLoadDefaultsAreAOneCellStudy(t *testing.T) {
	req, status := parseLoadFlags(nil, io.Discard)
	if status != -1 {
		t.Fatalf("default flags: exit %d", status)
	}
	s, err := studyfile.Parse([]byte("name = \"one\"\nruns = 1\n[factors]\npage = \"pageA\"\nprotocol = \"spdy/3.1\"\n[baseline]\nprotocol = \"spdy/3.1\"\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Conditions) != 1 {
		t.Fatalf("%d conditions, want one cell", len(s.Conditions))
	}
	got, want := req.cond, s.Conditions[0].Condition
	got.Proto = req.protos[0]
	if got != want {
		t.Errorf("load's condition differs from the study's:\nload  %+v\nstudy %+v", got, want)
	}
	if spec.HashCondition(got) != s.Conditions[0].Hash {
		t.Errorf("hashes differ")
	}
}

// Every link setting reaches the stored condition: Gilbert-Elliott loss,
// per-direction queues and delays, traces, per-shard links, DNS.
func TestLoadFlagsStoreTheLink(t *testing.T) {
	req, status := parseLoadFlags([]string{"--ge-down", "p=1%,r=30%", "--queue-up", "20pkt", "--rtt", "40ms",
		"--delay-down", "30ms", "--per-shard-links", "--dns", "--shards", "2", "--no-dns=false"}, io.Discard)
	if status != -1 {
		t.Fatalf("exit %d", status)
	}
	l := req.cond.Link
	if l.GEDown != (probe.GilbertElliott{P: 0.01, R: 0.3, LossGood: 0, LossBad: 1}) || l.LossDown != 0 {
		t.Errorf("Gilbert-Elliott downlink: %+v, loss %g", l.GEDown, l.LossDown)
	}
	if l.QueuePkts != 100 || l.QueueUp != (probe.Queue{Pkts: 20}) || l.QueueDown != (probe.Queue{}) {
		t.Errorf("queues %d / down %+v / up %+v", l.QueuePkts, l.QueueDown, l.QueueUp)
	}
	if l.DelayDown.Milliseconds() != 30 || l.Shared || !req.cond.DNS || req.cond.Shards != 2 {
		t.Errorf("condition %+v", req.cond)
	}
	b, _ := json.Marshal(req.cond)
	if !strings.Contains(string(b), `"ge_down":{"p":0.01,"r":0.3,"loss_good":0,"loss_bad":1}`) {
		t.Errorf("stored condition lacks the Gilbert-Elliott model: %s", b)
	}
}

// TestLoadStack2012FillsWhatFlagsDoNotSet: --stack 2012 expands every
// piece the command line leaves out (the flags' defaults do not count as
// set) and keeps those it gives.
func TestLoadStack2012FillsWhatFlagsDoNotSet(t *testing.T) {
	req, status := parseLoadFlags([]string{"--stack", "2012", "--iw", "10", "--no-link"}, io.Discard)
	if status != -1 {
		t.Fatalf("exit %d", status)
	}
	c := req.cond
	if c.TCP.IW != 10 || !c.TCP.SlowStartAfterIdle || c.TCP.Recovery != probe.Recovery2012 ||
		!c.Nagle || c.TLS != probe.TLS10 || c.TLSKx != probe.KxRSA || !c.TLSResume {
		t.Errorf("--stack 2012 --iw 10: %+v", c)
	}
}
