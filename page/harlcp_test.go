package page

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// withLCP is testdata/onload.har with its page's LCP fields set.
func withLCP(t *testing.T, fields map[string]any) []byte {
	t.Helper()
	b, err := os.ReadFile(onloadHAR)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	pt := doc["log"].(map[string]any)["pages"].([]any)[0].(map[string]any)["pageTimings"].(map[string]any)
	for k, v := range fields {
		pt[k] = v
	}
	out, _ := json.Marshal(doc)
	return out
}

// A recording's LCP image (spdylab record's pageTimings field) becomes the
// manifest's lcp_resource; a text LCP, an image not replayed and a field
// of the wrong type leave none, the first two with a note.
func TestImportKeepsTheRecordedLCP(t *testing.T) {
	m, _, err := ImportHAR(withLCP(t, map[string]any{"_largestContentfulPaint": 420.5, "_largestContentfulPaintUrl": "https://img.onload.test:443/photo.jpg"}), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.LCPResource == nil || m.URL(*m.LCPResource) != "https://img.onload.test/photo.jpg" {
		t.Fatalf("lcp_resource %v: want photo.jpg's", m.LCPResource)
	}
	for _, tc := range []struct {
		fields map[string]any
		note   string
	}{
		{map[string]any{"_largestContentfulPaint": 300}, "is a text block"},
		{map[string]any{"_largestContentfulPaint": 300, "_largestContentfulPaintUrl": "https://img.onload.test/gone.jpg"}, "is not among the replayed resources"},
		{map[string]any{"_largestContentfulPaintUrl": 12}, ""},
	} {
		m, _, err := ImportHAR(withLCP(t, tc.fields), ImportOptions{})
		if err != nil {
			t.Fatalf("%v: %v", tc.fields, err)
		}
		notes := strings.Join(m.Notes, "\n")
		if m.LCPResource != nil || (tc.note != "" && !strings.Contains(notes, tc.note)) || (tc.note == "" && strings.Contains(notes, "lcp: the recorded")) {
			t.Errorf("%v: lcp_resource %v, notes %q: want none, note %q", tc.fields, m.LCPResource, notes, tc.note)
		}
	}
}
