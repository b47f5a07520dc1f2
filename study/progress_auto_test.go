package study

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/study/eta"
	"github.com/spdylab/spdylab/study/event"
)

func TestProgressWithRunsAutoShowsAFloor(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, false, 4, eta.New(pickBench), 1)
	feed := &progressFeed{p: p}
	done := func() { feed.load(event.Load{Bench: "b", Started: time.Now()}, 0) }
	p.setAuto()
	for range 4 {
		done()
	}
	// The total is a floor: reaching it is no reason for a line (a bench
	// may add a run); 30 seconds since the last line is.
	if out.String() != "spdylab: 4 probes to run\n" {
		t.Errorf("a line before 30 s: %q", out.String())
	}
	p.grew("b", make([]eta.Load, 2))
	done()
	p.lastLine = time.Time{}
	done()
	if !strings.Contains(out.String(), "6/≥6 (runs auto) probes") || !strings.Contains(out.String(), "≥") {
		t.Errorf("progress %q: want the grown total shown as a floor", out.String())
	}
}
