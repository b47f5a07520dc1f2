package store

import (
	"reflect"
	"testing"

	"github.com/spdylab/spdylab/probe"
)

// A probe's result comes back from the store with the client's and the
// servers' TCP_INFO, every field of them.
func TestResultKeepsBothSidesTCPInfo(t *testing.T) {
	st, s := newStudyStore(t, "name = \"t\"\nruns = 1\n[factors]\nprotocol = \"https\"\npage = \"pageA\"\n", 0)
	conn := probe.TCPInfo{ConnID: 1, Host: "s1.spdylab.test", Retransmits: 4, SegsOut: 300, SegsIn: 150, SndCwnd: 14, SndSsthresh: 9,
		RTTms: 41.5, RTTVarms: 2.5, BytesAcked: 400000, BytesRecv: 900, BytesSent: 405600, BytesRetrans: 5600, CongestionCC: "cubic"}
	server := conn
	server.Peer = "10.200.0.1:41000"
	r := probe.Result{Condition: s.Conditions[0].Condition, PLTms: 900, TCP: []probe.TCPInfo{conn},
		ServerTCP: probe.NewServerTCP([]probe.TCPInfo{server})}
	if _, err := st.Put(Probe{CondHash: s.Conditions[0].Hash, Result: r}); err != nil {
		t.Fatal(err)
	}
	ps, err := st.Probes(false)
	if err != nil || len(ps) != 1 {
		t.Fatalf("%d probes, %v", len(ps), err)
	}
	got := ps[0].Result
	if !reflect.DeepEqual(got.TCP, r.TCP) || !reflect.DeepEqual(got.ServerTCP, r.ServerTCP) {
		t.Errorf("stored TCP_INFO changed:\nclient %+v\nwant   %+v\nserver %+v\nwant   %+v", got.TCP, r.TCP, got.ServerTCP, r.ServerTCP)
	}
}
