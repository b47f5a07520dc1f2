package report

import (
	"testing"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

func sctpTestCond(hash, page, loss, proto string, k probe.SCTP) *Condition {
	v := map[string]string{"page": page, "loss": loss, "protocol": proto, "tls": "none"}
	if k.NoControlStream {
		v["sctp_control_stream"] = "false"
	}
	return &Condition{Cond: spec.Cond{Condition: probe.Condition{Page: page, Proto: proto, TLS: probe.TLSNone, SCTP: k}, Values: v, Hash: hash}}
}

func TestSCTPRowsClassifyPagesAndAverage(t *testing.T) {
	conds := []*Condition{
		sctpTestCond("t1", "a", "2%", probe.ProtoSPDY31, probe.SCTP{}),
		sctpTestCond("s1", "a", "2%", probe.ProtoSPDY31SCTP, probe.SCTP{}),
		sctpTestCond("t2", "b", "2%", probe.ProtoSPDY31, probe.SCTP{}),
		sctpTestCond("s2", "b", "2%", probe.ProtoSPDY31SCTP, probe.SCTP{}),
		sctpTestCond("t3", "c", "2%", probe.ProtoSPDY31, probe.SCTP{}),
		sctpTestCond("s3", "c", "2%", probe.ProtoSPDY31SCTP, probe.SCTP{}),
		sctpTestCond("t4", "a", "0%", probe.ProtoSPDY31, probe.SCTP{}),
		sctpTestCond("s4", "a", "0%", probe.ProtoSPDY31SCTP, probe.SCTP{}),
		sctpTestCond("v1", "a", "2%", probe.ProtoSPDY31SCTP, probe.SCTP{NoControlStream: true}),
		sctpTestCond("h1", "a", "2%", probe.ProtoHTTPS, probe.SCTP{}), // not part of the comparison
	}
	pr := func(hash string, plt float64, fast uint64) store.Probe {
		r := probe.Result{PLTms: plt}
		if hash[0] != 't' {
			r.SCTP = &probe.SCTPCounters{Associations: 1, Server: probe.SCTPEndpoint{FastRetransmissions: fast}}
		}
		return store.Probe{CondHash: hash, Result: r}
	}
	probes := []store.Probe{
		pr("t1", 1000, 0), pr("t1", 1200, 0), pr("s1", 800, 4), pr("s1", 1000, 2), // a: 1100 vs 900, faster
		pr("t2", 1000, 0), pr("s2", 1040, 1), // b: within 5%
		pr("t3", 1000, 0), pr("s3", 1300, 3), // c: slower
		pr("t4", 500, 0), pr("s4", 500, 0),
		pr("v1", 2200, 9),
		{CondHash: "s2", Result: probe.Result{Failed: true, PLTms: 99999}}, // failed loads do not count
	}
	rows := sctpRows(sctpPairs(conds), probes)
	if len(rows) != 3 {
		t.Fatalf("got %d rows, want 0%%, 2%% and the 2%% variant: %+v", len(rows), rows)
	}
	if rows[0].Loss != "0%" || rows[1].Loss != "2%" || rows[1].Variant != "" || rows[2].Variant != "no control stream" {
		t.Fatalf("row order: %+v", rows)
	}
	r := rows[1]
	if r.Pages != 3 || r.Faster != 1 || r.Same != 1 || r.Slower != 1 {
		t.Errorf("2%%: pages %d, faster %d same %d slower %d; want 3, 1, 1, 1", r.Pages, r.Faster, r.Same, r.Slower)
	}
	if r.TCPms != (1100+1000+1000)/3.0 || r.SCTPms != (900+1040+1300)/3.0 {
		t.Errorf("2%%: TCP %.1f SCTP %.1f ms", r.TCPms, r.SCTPms)
	}
	if r.ServerFast != (3+1+3)/3.0 {
		t.Errorf("fast retransmissions per load %.2f, want %.2f", r.ServerFast, (3+1+3)/3.0)
	}
	if v := rows[2]; v.Pages != 1 || v.Slower != 1 || v.TCPms != 1100 || v.SCTPms != 2200 {
		t.Errorf("variant row %+v", v)
	}
	if got := sctpTables(&Analysis{Conds: conds[:2]}); got != nil {
		t.Errorf("tables without probes: %v", got)
	}
}
