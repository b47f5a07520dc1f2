package probe

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestSumTCPAddsEveryConnection(t *testing.T) {
	conns := []TCPInfo{
		{ConnID: 1, Retransmits: 3, SegsOut: 100, SegsIn: 50, BytesSent: 140000, BytesRetrans: 4200, BytesAcked: 135000, BytesRecv: 900, SndCwnd: 12},
		{ConnID: 2, Retransmits: 1, SegsOut: 10, SegsIn: 8, BytesSent: 9000, BytesRetrans: 1400, BytesAcked: 7600, BytesRecv: 300, SndCwnd: 40},
	}
	want := TCPSum{Conns: 2, Retransmits: 4, SegsOut: 110, SegsIn: 58, BytesSent: 149000, BytesRetrans: 5600, BytesAcked: 142600, BytesRecv: 1200}
	if got := SumTCP(conns); got != want {
		t.Errorf("SumTCP = %+v, want %+v", got, want)
	}
	s := NewServerTCP(conns)
	if s == nil || s.Sum != want || s.Retransmits() != 4 || len(s.Conns) != 2 {
		t.Errorf("NewServerTCP = %+v", s)
	}
	if NewServerTCP(nil) != nil {
		t.Error("no connections must give nil (omitted from stored results)")
	}
	var none *ServerTCP
	if none.Retransmits() != 0 {
		t.Error("nil ServerTCP has retransmits")
	}
}

// Results are stored as JSON (study/store): the servers' records survive.
func TestServerTCPSurvivesJSON(t *testing.T) {
	r := Result{Run: 3, ServerTCP: NewServerTCP([]TCPInfo{{ConnID: 1, Host: "s1.spdylab.test", Peer: "10.200.0.1:40000",
		Retransmits: 7, SndCwnd: 9, SndSsthresh: 6, RTTms: 101.5, BytesSent: 300000, BytesRetrans: 9800, CongestionCC: "cubic"}})}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.ServerTCP, r.ServerTCP) {
		t.Errorf("round trip: %+v, want %+v", back.ServerTCP, r.ServerTCP)
	}
	b, _ = json.Marshal(Result{})
	var m map[string]any
	json.Unmarshal(b, &m)
	if _, ok := m["server_tcp"]; ok {
		t.Error("a result without server records stores server_tcp")
	}
}
