package studyfile

import (
	"strings"
	"testing"
)

const metricStudy = `name = "m"
runs = 2
%s
[factors]
page = "pageA"
client = "chromium"
protocol = ["https", "h2"]
[baseline]
protocol = "https"
`

// A study names the metric it is judged on; a metric the lab does not
// know is refused with its line and the valid names.
func TestMetricKey(t *testing.T) {
	s, err := Parse([]byte(strings.Replace(metricStudy, "%s", `metric = "LCP"`, 1)), "")
	if err != nil || s.Metric != "lcp" {
		t.Fatalf("metric = \"LCP\": %v, study metric %q, want lcp", err, s.Metric)
	}
	s, err = Parse([]byte(strings.Replace(metricStudy, "%s", "", 1)), "")
	if err != nil || s.Metric != "" {
		t.Fatalf("no metric key: %v, study metric %q, want none (PLT)", err, s.Metric)
	}
	fp := s.Fingerprint()
	s, _ = Parse([]byte(strings.Replace(metricStudy, "%s", `metric = "fcp"`, 1)), "")
	if s.Fingerprint() != fp {
		t.Error("the metric changed the study's fingerprint: a store could not be judged in another metric")
	}
	_, err = Parse([]byte(strings.Replace(metricStudy, "%s", `metric = "ttfb"`, 1)), "")
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), `"ttfb"`) || !strings.Contains(err.Error(), "lcp") {
		t.Errorf("metric = \"ttfb\": %v, want its line, the value and the names", err)
	}
}
