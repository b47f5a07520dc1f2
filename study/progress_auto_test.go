package study

import (
	"bytes"
	"strings"
	"testing"
)

func TestProgressWithRunsAutoShowsAFloor(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, false, 4, etaModel{}, 1)
	p.setAuto()
	p.grew(2, false, 0)
	for range 6 {
		p.add(false, false, 0, 0)
	}
	if !strings.Contains(out.String(), "6/≥6 (runs auto) probes") || !strings.Contains(out.String(), "≥") {
		t.Errorf("progress %q: want the grown total shown as a floor", out.String())
	}
}
