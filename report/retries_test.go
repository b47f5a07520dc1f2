package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// spdylab load's summary counts the requests sent again, over the
// successful loads, and says so only when there are some.
func TestLoadSummaryCountsRetries(t *testing.T) {
	rs := []probe.Result{{PLTms: 100, ToWms: 90, Retries: 3}, {PLTms: 100, ToWms: 90}, {PLTms: 100, ToWms: 90, Retries: 2},
		{Failed: true, Error: "x", Retries: 50}}
	s := SummarizeLoads("pageA", probe.ProtoSPDY31, probe.Condition{}, rs)
	if s.Retries != 5 {
		t.Errorf("retries %d, want 5 (failed loads left out)", s.Retries)
	}
	var out bytes.Buffer
	s.Print(&out)
	if !strings.Contains(out.String(), "retries 5:") {
		t.Errorf("summary:\n%s", out.String())
	}
	out.Reset()
	SummarizeLoads("pageA", probe.ProtoSPDY31, probe.Condition{}, rs[1:2]).Print(&out)
	if strings.Contains(out.String(), "retries") {
		t.Errorf("summary of loads without retries mentions them:\n%s", out.String())
	}
}

// The conditions table gets a retries column once some condition's loads
// sent requests again; conditions.json always carries the count.
func TestConditionsCountRetries(t *testing.T) {
	s, st := openCableStore(t)
	a, err := Analyze(st)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(conditionsTable(a).Head, "retries") {
		t.Error("a retries column without retries")
	}
	c := s.Conditions[0]
	r := probe.Result{Condition: c.Condition, Run: s.Runs, Started: time.Now(), PLTms: 1000, ToWms: 900, Resources: 1, Retries: 7}
	putExtraLoad(t, st, s, c, r, probe.LinkCheck{OK: true})
	if a, err = Analyze(st); err != nil {
		t.Fatal(err)
	}
	tab := conditionsTable(a)
	col := slices.Index(tab.Head, "retries")
	if col < 0 {
		t.Fatalf("no retries column in %v", tab.Head)
	}
	for i, cond := range a.Conds {
		want := "0"
		if cond.Hash == c.Hash {
			want = "7"
		}
		if got := tab.Rows[i][col].Text; got != want {
			t.Errorf("condition %s: retries %q, want %q", cond.Label, got, want)
		}
	}
	for _, row := range conditionsJSON(a) {
		if row.Hash == c.Hash && row.Retries != 7 {
			t.Errorf("conditions.json: retries %d, want 7", row.Retries)
		}
	}
}

// openCableStore fills a store with cableStudy's loads and opens it.
func openCableStore(t *testing.T) (*spec.Study, *store.Store) {
	t.Helper()
	dir := t.TempDir()
	s := fillStore(t, dir, cableStudy, nil)
	st, err := store.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return s, st
}

// putExtraLoad stores r as one more run of c, in a session of its own.
func putExtraLoad(t *testing.T, st *store.Store, s *spec.Study, c spec.Cond, r probe.Result, check probe.LinkCheck) {
	t.Helper()
	sess, _ := st.StartSession(study.CollectProvenance(s.Seed, 1, spec.Shard{}, "test", nil))
	if _, err := st.Put(store.Probe{CondHash: c.Hash, Run: s.Runs, SessionID: sess, Result: r, Check: check}); err != nil {
		t.Fatal(err)
	}
}
