package study

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// countingBench counts how many browser benches are open at once.
type countingBench struct {
	Bench
	done func()
}

func (b countingBench) Close() error { b.done(); return b.Bench.Close() }

// clientsStudy has six loader and six browser benches.
const clientsStudy = `
name = "clients"
runs = 2
[factors]
page = ["pageA", "pageB", "pageC"]
rtt = ["20ms", "100ms"]
protocol = ["https", "h2"]
client = ["loader", "chromium"]
`

func TestRunnerCapsBrowserBenches(t *testing.T) {
	s := mustParse(t, clientsStudy)
	st, dir := newTestStore(t, s)
	log := &loadLog{}
	inner := fakeOpener(log, 10*time.Millisecond, nil)
	var mu sync.Mutex
	open, peak, opened := 0, 0, 0
	opener := func(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, d string) (Bench, error) {
		b, err := inner(ctx, c, pg, seed, d)
		if err != nil {
			return nil, err
		}
		if cl, _ := probe.LookupClient(c.Client); !cl.Browser {
			return b, nil
		}
		mu.Lock()
		open++
		opened++
		peak = max(peak, open)
		mu.Unlock()
		return countingBench{b, func() { mu.Lock(); open--; mu.Unlock() }}, nil
	}
	r := &Runner{Study: s, Store: st, Open: opener, Jobs: 6, BrowserJobs: 1, WorkDir: filepath.Join(dir, "w")}
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Attempts != len(s.Conditions)*s.Runs || sum.Failed != 0 {
		t.Fatalf("summary %+v, want %d loads", sum, len(s.Conditions)*s.Runs)
	}
	if opened != 6 || peak != 1 {
		t.Fatalf("%d browser benches opened, at most %d at once; want 6, one at a time", opened, peak)
	}
}

// With BrowserAlone, no bench is open beside a browser bench: a browser
// bench opens only when nothing else is open, and nothing opens while it is.
func TestRunnerRunsBrowserBenchesAlone(t *testing.T) {
	s := mustParse(t, clientsStudy)
	st, dir := newTestStore(t, s)
	inner := fakeOpener(&loadLog{}, 5*time.Millisecond, nil)
	var mu sync.Mutex
	open, browserOpen, violations, browsers := 0, false, 0, 0
	opener := func(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, d string) (Bench, error) {
		b, err := inner(ctx, c, pg, seed, d)
		if err != nil {
			return nil, err
		}
		cl, _ := probe.LookupClient(c.Client)
		mu.Lock()
		defer mu.Unlock()
		if browserOpen || (cl.Browser && open > 0) {
			violations++
		}
		open++
		if cl.Browser {
			browserOpen = true
			browsers++
		}
		return countingBench{b, func() {
			mu.Lock()
			open--
			if cl.Browser {
				browserOpen = false
			}
			mu.Unlock()
		}}, nil
	}
	r := &Runner{Study: s, Store: st, Open: opener, Jobs: 6, BrowserJobs: 2, BrowserAlone: true, WorkDir: filepath.Join(dir, "w")}
	sum, err := r.Run(context.Background())
	if err != nil || sum.Attempts != len(s.Conditions)*s.Runs {
		t.Fatalf("%+v, %v", sum, err)
	}
	if browsers != 6 || violations != 0 {
		t.Fatalf("%d browser benches, %d opened beside another bench; want 6 and none", browsers, violations)
	}
}
