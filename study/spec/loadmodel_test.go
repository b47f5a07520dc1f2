package spec

import (
	"math"
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// twelveOnOneHost is a 12-object page (120 kB, 82 full packets) on one
// host: two request rounds on HTTP/1.1's six connections.
func twelveOnOneHost() *page.Manifest {
	m := &page.Manifest{Hosts: []string{"a"}, Resources: []page.Resource{{ID: 0, Host: "a", Size: 10000, Parent: -1, Discovery: page.Discovery{Kind: page.KindRoot}}}}
	for i := 1; i < 12; i++ {
		m.Resources = append(m.Resources, page.Resource{ID: i, Host: "a", Size: 10000, Parent: 0, Discovery: page.Discovery{Kind: page.KindRef, Offset: 100}})
	}
	return m
}

func modelledMs(m *page.Manifest, c probe.Condition) float64 {
	return float64(ModelledLoad(m, c)) / float64(time.Millisecond)
}

// The model by hand: every term on one condition.
func TestModelledLoadByHand(t *testing.T) {
	m := twelveOnOneHost()
	c := probe.Condition{Proto: probe.ProtoHTTPS, TLS: "1.2", Link: probe.Link{RTT: 100 * time.Millisecond, DownBps: 1e6, LossDown: 0.01}}
	bound := LowerBound(m, c).Total
	packets := 120000.0 / estPacketBytes
	// HTTPS: six connections to the host, two request rounds.
	rtts := estExtraRTTs + estSlowStartRTTs*math.Log2(1+packets/(6*estKernelIW)) + estLossRTTs*0.01*packets/6 + estRequestRoundRTTs*2
	want := bound*estBoundFactor + 100*rtts + float64(estLoadOverhead/time.Millisecond)
	if got := modelledMs(m, c); math.Abs(got-want) > 0.01 {
		t.Errorf("https, 1%% loss: %.2f ms, want %.2f", got, want)
	}
}

// Each condition the stores showed slower than the bound says is slower
// in the model too, all else equal.
func TestModelledLoadFollowsTheSlowerConditions(t *testing.T) {
	m := twelveOnOneHost()
	base := probe.Condition{Proto: probe.ProtoSPDY31, TLS: "1.2", Link: probe.Link{RTT: 20 * time.Millisecond, DownBps: 10e6}}
	at := func(change func(*probe.Condition)) float64 {
		c := base
		change(&c)
		return modelledMs(m, c)
	}
	b := modelledMs(m, base)
	for name, change := range map[string]func(*probe.Condition){
		"loss":                     func(c *probe.Condition) { c.Link.LossDown = 0.02 },
		"bursty loss":              func(c *probe.Condition) { c.Link.GEDown = probe.GilbertElliott{P: 0.01, R: 0.5, LossBad: 1} },
		"rtt":                      func(c *probe.Condition) { c.Link.RTT = 100 * time.Millisecond },
		"https's request queue":    func(c *probe.Condition) { c.Proto = probe.ProtoHTTPS },
		"sctp":                     func(c *probe.Condition) { c.Proto, c.TLS = probe.ProtoSPDY31SCTP, probe.TLSNone },
		"a smaller initial window": func(c *probe.Condition) { c.TCP.IW = 3 },
	} {
		if got := at(change); got <= b {
			t.Errorf("%s: %.0f ms, not more than %.0f ms without it", name, got, b)
		}
	}
	if got := at(func(c *probe.Condition) { c.NoLink = true }); got >= b {
		t.Errorf("no link: %.0f ms, not less than %.0f ms over the link", got, b)
	}
}

// A real browser's load costs its start and stop on top of the load.
func TestModelledWallAddsTheBrowser(t *testing.T) {
	m := twelveOnOneHost()
	c := probe.Condition{Proto: probe.ProtoHTTPS, TLS: "1.2", Link: probe.Link{RTT: 20 * time.Millisecond, DownBps: 10e6}}
	loaderWall := ModelledWall(m, c)
	c.Client = probe.ClientChromium
	if got := ModelledWall(m, c); got != loaderWall+estBrowserOverhead {
		t.Errorf("chromium: %v, want %v + %v", got, loaderWall, estBrowserOverhead)
	}
}

// TestLoadModelNamesItsCalibrationStores: a replay can tell the stores
// the model was fitted on from the others by their folders' names.
func TestLoadModelNamesItsCalibrationStores(t *testing.T) {
	fitted, other := SplitByFit([]string{"/work/runs/s1full", "/tmp/stores/study2-loss", "tune-rec/", "../out/fidb2", "/work/runs/fidb3"})
	if len(fitted) != 3 || fitted[0] != "/work/runs/s1full" || fitted[1] != "tune-rec/" || fitted[2] != "../out/fidb2" {
		t.Errorf("fitted on %v, want s1full, tune-rec and fidb2", fitted)
	}
	if len(other) != 2 || other[0] != "/tmp/stores/study2-loss" || other[1] != "/work/runs/fidb3" {
		t.Errorf("other stores %v, want study2-loss and fidb3", other)
	}
}
