package probe

import (
	"strings"
	"testing"
)

func TestMetricsReadLoadsAndRefuseWhatAClientCannotGive(t *testing.T) {
	fcp, si := 120.0, 300.0
	r := &Result{PLTms: 900, ToWms: 700, Paint: &Paint{FCPms: &fcp, SpeedIndexMs: &si}}
	want := map[string]float64{MetricPLT: 900, MetricToW: 700, MetricFCP: 120, MetricSI: 300}
	for name, v := range want {
		m, err := LookupMetric(name)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := m.Of(r); !ok || got != v {
			t.Errorf("%s of the load: %v %v, want %v", name, got, ok, v)
		}
	}
	lcp, _ := LookupMetric("LCP")
	if _, ok := lcp.Of(r); ok {
		t.Error("a load without LCP gives one")
	}
	old := &Result{PLTms: 900} // stored before paint metrics: absent, not zero
	if v, ok := lcp.Of(old); ok {
		t.Errorf("an old load's LCP: %v, want absent", v)
	}
	if _, ok := lcp.Of(&Result{Failed: true, PLTms: 5}); ok {
		t.Error("a failed load gives a metric")
	}
	if m, _ := LookupMetric(""); m.Name != MetricPLT {
		t.Errorf("the default metric is %s, want plt", m.Name)
	}
	if _, err := LookupMetric("ttfb"); err == nil || !strings.Contains(err.Error(), "plt, tow, fcp, lcp, si") {
		t.Errorf("unknown metric: %v", err)
	}
	s, _ := LookupMetric(MetricSI)
	if why := s.Refuses(ClientLoader); !strings.Contains(why, "frames") {
		t.Errorf("si from the loader: %q, want refused with the reason", why)
	}
	if s.Refuses(ClientChromium) != "" || lcp.Refuses(ClientLoader) != "" {
		t.Error("Chromium's Speed Index or the loader's LCP estimate refused")
	}
	est := &Result{Paint: &Paint{FCPms: &fcp, Estimated: true}}
	f, _ := LookupMetric(MetricFCP)
	if !f.Estimated(est) || f.Label(true) != "FCP (the loader's estimate)" || f.Estimated(r) {
		t.Errorf("the loader's FCP is not labelled an estimate")
	}
}
