package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/probe"
)

func f64(v float64) *float64 { return &v }

// load's summary gives paint metrics over the loads that measured them,
// says why the others are absent, and has none at all for loads without
// paint records (the loader, older loads): absent, never 0.
func TestLoadSummaryPaint(t *testing.T) {
	rs := []probe.Result{
		{PLTms: 900, Paint: &probe.Paint{FCPms: f64(300), LCPms: f64(700), LCPURL: "https://s1/hero.jpg", LCPElement: "IMG"}},
		{PLTms: 1000, Paint: &probe.Paint{FCPms: f64(400), LCPms: f64(800), LCPURL: "https://s1/hero.jpg", LCPElement: "IMG"}},
		{PLTms: 950, Paint: &probe.Paint{Absent: "no FCP: the page painted nothing: its body holds no text or image"}},
	}
	s := SummarizeLoads("p", probe.ProtoH2, probe.Condition{}, rs)
	if s.Paint == nil || s.Paint.Loads != 3 {
		t.Fatalf("paint %+v: want three loads", s.Paint)
	}
	fcp := s.Paint.Metrics["fcp_ms"]
	if fcp.N != 2 || fcp.Median == nil || *fcp.Median != 350 {
		t.Errorf("FCP %+v: want the median of the two measured, 350", fcp)
	}
	if si := s.Paint.Metrics["speed_index_ms"]; si.N != 0 || si.Median != nil {
		t.Errorf("Speed Index %+v: want absent", si)
	}
	if s.Paint.LCPURLs["https://s1/hero.jpg"] != 2 || len(s.Paint.Absent) != 1 {
		t.Errorf("LCP URLs %v, absent %v", s.Paint.LCPURLs, s.Paint.Absent)
	}
	b, _ := json.Marshal(s)
	if !strings.Contains(string(b), `"speed_index_ms":{"n":0,"median_ms":null`) {
		t.Errorf("JSON %s: want the absent Speed Index as null", b)
	}
	var out bytes.Buffer
	s.Print(&out)
	if !strings.Contains(out.String(), "FCP 350.0 ms, LCP 750.0 ms") || !strings.Contains(out.String(), "painted nothing") {
		t.Errorf("summary:\n%s", out.String())
	}
	old := SummarizeLoads("p", probe.ProtoH2, probe.Condition{}, []probe.Result{{PLTms: 900}})
	if old.Paint != nil {
		t.Errorf("loads without paint records summarised as %+v", old.Paint)
	}
}
