package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A study varying a SPDY-only knob beside its https baseline: each spdy
// condition is compared with the https condition of its own bench (same
// frame_size, ignored by https), and the report says https ignored it.
func TestIgnoredKnobsBesideTheBaseline(t *testing.T) {
	dir := t.TempDir()
	fillStore(t, dir, `
name = "frames"
runs = 5
[factors]
page = "pageA"
protocol = ["https", "spdy/3.1"]
frame_size = [4096, 65536]
[baseline]
protocol = "https"
`, nil)
	a, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range a.Conds {
		if c.Proto != "spdy/3.1" {
			continue
		}
		base := a.ByHash[c.BaseHash]
		if base == nil || base.Proto != "https" || base.Values["frame_size"] != c.Values["frame_size"] {
			t.Errorf("spdy/3.1 frame_size %s compared with %+v, want the https of its bench", c.Values["frame_size"], base)
		}
	}
	var rows []struct {
		Values  map[string]string `json:"values"`
		Ignored []string          `json:"ignored"`
	}
	js, _ := os.ReadFile(filepath.Join(dir, JSONFile))
	if err := json.Unmarshal(js, &rows); err != nil || len(rows) != 4 {
		t.Fatalf("conditions.json: %d rows, %v", len(rows), err)
	}
	for _, r := range rows {
		if ignores := slices.Equal(r.Ignored, []string{"frame_size"}); ignores != (r.Values["protocol"] == "https") {
			t.Errorf("conditions.json: %s frame_size %s ignored %v", r.Values["protocol"], r.Values["frame_size"], r.Ignored)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	if !bytes.Contains(html, []byte("4096 (ignored by https)")) || bytes.Contains(html, []byte("ignored by spdy/3.1")) {
		t.Error("report.html does not mark the frame_size https ignored")
	}
}
