package report

import (
	"bytes"
	"strings"
	"testing"

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
