package store

import (
	"reflect"
	"testing"

	"github.com/spdylab/spdylab/probe"
)

func ptr(v float64) *float64 { return &v }

// Paint metrics come back from the store as stored: in the result and in
// their columns, a missing one (a page that never painted) as absent.
func TestPaintMetricsRoundTrip(t *testing.T) {
	st, _ := quickStore(t)
	defer st.Close()
	s, _ := st.Study()
	c := s.Conditions[0]
	painted := &probe.Paint{FCPms: ptr(310.5), LCPms: ptr(920.25), LCPURL: "https://s1.spdylab.test/hero.jpg", LCPElement: "IMG", SpeedIndexMs: ptr(640), Frames: 7}
	blank := &probe.Paint{Absent: "no FCP: the page painted nothing: its body holds no text or image"}
	for run, p := range []*probe.Paint{painted, blank, nil} {
		r := probe.Result{Condition: c.Condition, Run: run, PLTms: 1000, Paint: p}
		if _, err := st.Put(Probe{CondHash: c.Hash, Run: run, Result: r}); err != nil {
			t.Fatal(err)
		}
	}
	ps, err := st.Probes(false)
	if err != nil || len(ps) != 3 {
		t.Fatalf("%d probes, %v", len(ps), err)
	}
	if !reflect.DeepEqual(ps[0].Result.Paint, painted) || !reflect.DeepEqual(ps[1].Result.Paint, blank) || ps[2].Result.Paint != nil {
		t.Errorf("stored paint changed: %+v, %+v, %+v", ps[0].Result.Paint, ps[1].Result.Paint, ps[2].Result.Paint)
	}
	for metric, want := range map[string]float64{"fcp_ms": 310.5, "lcp_ms": 920.25, "speed_index_ms": 640, "plt_ms": 1000} {
		vals, missing, err := st.Metric(metric, []string{c.Hash})
		if err != nil {
			t.Fatal(err)
		}
		wantMissing := 2
		if metric == "plt_ms" {
			wantMissing = 0
		}
		if got := vals[c.Hash]; len(got) == 0 || got[0] != want || missing[c.Hash] != wantMissing {
			t.Errorf("%s: %v with %d missing, want %v first and %d missing", metric, got, missing[c.Hash], want, wantMissing)
		}
	}
	var url string
	if err := st.db.QueryRow(`SELECT lcp_url FROM probes WHERE run = 0`).Scan(&url); err != nil || url != painted.LCPURL {
		t.Errorf("lcp_url column %q, %v", url, err)
	}
	if _, _, err := st.Metric("fcp; DROP TABLE probes", []string{c.Hash}); err == nil {
		t.Error("an unknown metric was read")
	}
}

// A store written before paint metrics reads them as absent: no value,
// counted missing, and the result without a paint record.
func TestOldStoreReadsPaintAsAbsent(t *testing.T) {
	st, dir := quickStore(t)
	s, _ := st.Study()
	c := s.Conditions[0]
	if _, err := st.Put(Probe{CondHash: c.Hash, Result: probe.Result{Condition: c.Condition, PLTms: 800}}); err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{"fcp_ms", "lcp_ms", "speed_index_ms", "lcp_url"} {
		if _, err := st.db.Exec(`ALTER TABLE probes DROP COLUMN ` + col); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatalf("an older store does not open for reading: %v", err)
	}
	defer r.Close()
	vals, missing, err := r.Metric("lcp_ms", []string{c.Hash})
	if err != nil || len(vals[c.Hash]) != 0 || missing[c.Hash] != 1 {
		t.Errorf("LCP of an old load: %v, %d missing, %v: want none, 1 missing", vals, missing[c.Hash], err)
	}
	ps, err := r.Probes(false)
	if err != nil || len(ps) != 1 || ps[0].Result.Paint != nil {
		t.Errorf("old probe: %+v %v", ps, err)
	}
}
