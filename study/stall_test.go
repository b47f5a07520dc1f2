package study

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// stallingBench's emulator stalls (p99 lateness lateMs) in the loads
// stall says; a stalled load is 50% slower, as a starved machine makes it.
type stallingBench struct {
	Bench
	stall  func(proto string, run int) bool
	lateMs float64
}

func (b stallingBench) Load(ctx context.Context, proto string, run int) probe.Result {
	res := b.Bench.Load(ctx, proto, run)
	if b.stall(proto, run) {
		res.Link.Up.LateP99ms = b.lateMs
		res.PLTms *= 1.5
	}
	return res
}

// stallRun runs tinyStudy on benches whose emulator stalls where stall
// says, by lateMs, and returns the summary and the stored probes.
func stallRun(t *testing.T, lateMs float64, stall func(proto string, run, seen int) bool) (Summary, map[string][]probe.Result) {
	t.Helper()
	s := mustParse(t, tinyStudy)
	st, dir := newTestStore(t, s)
	log := &loadLog{}
	open := fakeOpener(log, 0, nil)
	seen := map[string]int{}
	opener := func(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, d string) (Bench, error) {
		b, err := open(ctx, c, pg, seed, d)
		if err != nil {
			return nil, err
		}
		return stallingBench{b, func(proto string, run int) bool {
			log.mu.Lock()
			defer log.mu.Unlock()
			k := c.Page + c.Link.RTT.String() + proto + string(rune('0'+run))
			seen[k]++
			return stall(proto, run, seen[k]-1)
		}, lateMs}, nil
	}
	var prog bytes.Buffer
	r := &Runner{Study: s, Store: st, Open: opener, Jobs: 2, WorkDir: filepath.Join(dir, "w"), Progress: &prog}
	sum, err := r.Run(context.Background())
	// The progress and the summary read the runner's one Counts: probes,
	// whatever their attempts, with the failed attempts beside. The last
	// line says every planned probe done.
	lines := strings.Split(strings.TrimSpace(prog.String()), "\n")
	if sum.Probes != sum.Planned {
		t.Errorf("summary %+v: %d probes done of %d planned", sum, sum.Probes, sum.Planned)
	}
	if want := fmt.Sprintf("spdylab: %d/%d probes (%d failed)", sum.Probes, sum.Planned, sum.Failed); !strings.HasPrefix(lines[len(lines)-1], want) {
		t.Errorf("last progress line %q, want it to start %q", lines[len(lines)-1], want)
	}
	if err != nil {
		t.Fatal(err)
	}
	probes, err := st.Probes(false)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string][]probe.Result{}
	for _, p := range probes {
		k := p.CondHash + string(rune('0'+p.Run))
		for len(byKey[k]) <= p.Attempt {
			byKey[k] = append(byKey[k], probe.Result{})
		}
		byKey[k][p.Attempt] = p.Result
	}
	return sum, byKey
}

// A load during which the emulator stalled is stored as a failed attempt
// naming the stall, and loaded again; the probe's PLT is the second
// load's.
func TestStalledLoadIsLoadedAgain(t *testing.T) {
	sum, byKey := stallRun(t, 40, func(proto string, run, seen int) bool { return run == 1 && seen == 0 })
	if sum.Stalled != 8 || sum.Failed != 8 || sum.Attempts != 32 || sum.Probes != 24 {
		t.Errorf("summary %+v, want the 8 probes of run 1 stalled once and loaded again (24 probes, 32 attempts stored)", sum)
	}
	for k, atts := range byKey {
		run := int(k[len(k)-1] - '0')
		switch {
		case run == 1 && (len(atts) != 2 || !atts[0].Failed || atts[0].Error != (&StalledError{}).Error() || atts[1].Failed || atts[1].Link.Up.LateP99ms != 0):
			t.Errorf("run 1 stored as %+v, want a stalled attempt then an on-time one", atts)
		case run != 1 && (len(atts) != 1 || atts[0].Failed):
			t.Errorf("run %d stored as %+v, want one on-time attempt", run, atts)
		}
	}
}

// A second attempt that stalls too stands (the probe is measured, its
// lateness stored with it); lateness under the stall line is no stall.
func TestStalledTwiceKeepsTheSecondAndLateIsNoStall(t *testing.T) {
	sum, byKey := stallRun(t, 40, func(proto string, run, seen int) bool { return run == 0 })
	if sum.Stalled != 8 || sum.Attempts != 32 {
		t.Errorf("summary %+v, want 8 stalls, each loaded once more", sum)
	}
	for k, atts := range byKey {
		if k[len(k)-1] == '0' && (len(atts) != 2 || atts[1].Failed || atts[1].Link.Up.LateP99ms != 40) {
			t.Errorf("run 0 stored as %+v, want the second stalled attempt kept", atts)
		}
	}
	sum, _ = stallRun(t, stats.SevereLateMs, func(string, int, int) bool { return true })
	if sum.Stalled != 0 || sum.Failed != 0 || sum.Attempts != 24 {
		t.Errorf("loads %v ms late (the line itself) counted as stalls: %+v", stats.SevereLateMs, sum)
	}
}

// The stalled attempt's error is a type callers can find with errors.As,
// and its text, which stores keep and reports read forever, is the one
// stored since stalls were first loaded again.
func TestStalledErrorKeepsTheStoredText(t *testing.T) {
	const stored = "the link emulator stalled during the load (packets released over 10 ms late at the 99th percentile): the load measured the machine, not the link; loaded again"
	err := fmt.Errorf("run 3: %w", &StalledError{LateP99ms: 45})
	var se *StalledError
	if !errors.As(err, &se) || se.LateP99ms != 45 {
		t.Fatalf("errors.As did not find the StalledError in %v", err)
	}
	if se.Error() != stored {
		t.Errorf("stored text changed:\n got %q\nwant %q", se.Error(), stored)
	}
}
