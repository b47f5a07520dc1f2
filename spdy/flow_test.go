package spdy

import "testing"

func TestInflow(t *testing.T) {
	const window = 100
	steps := []struct {
		name      string
		do        func(f *inflow) (got int64)
		want      int64
		wantAvail int64
	}{
		{"peer sends 60", func(f *inflow) int64 { return b2i(f.take(60, 0)) }, 1, 40},
		{"app reads 30: below half, no update", func(f *inflow) int64 { return f.consumed(30, window) }, 0, 40},
		{"app reads 20: half reached, update 50", func(f *inflow) int64 { return f.consumed(20, window) }, 50, 90},
		{"peer sends 90: window exactly used", func(f *inflow) int64 { return b2i(f.take(90, 0)) }, 1, 0},
		{"peer sends 5 more: overrun", func(f *inflow) int64 { return b2i(f.take(5, 0)) }, 0, -5},
		{"overrun amount", func(f *inflow) int64 { return f.overrun() }, 5, -5},
		{"within slack is tolerated", func(f *inflow) int64 { return b2i(f.take(5, 20)) }, 1, -10},
		{"grow reopens without an update", func(f *inflow) int64 { f.grow(10); return 0 }, 0, 0},
		{"consuming nothing sends nothing", func(f *inflow) int64 { return f.consumed(0, window) }, 0, 0},
	}
	f := inflow{avail: window}
	for _, s := range steps {
		if got := s.do(&f); got != s.want || f.avail != s.wantAvail {
			t.Fatalf("%s: got %d avail %d, want %d avail %d", s.name, got, f.avail, s.want, s.wantAvail)
		}
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func TestOutflow(t *testing.T) {
	f := outflow{avail: DefaultInitialWindowSize}
	f.take(DefaultInitialWindowSize)
	if f.avail != 0 {
		t.Fatalf("avail %d after sending the whole window", f.avail)
	}
	if !f.add(-1000) || f.avail != -1000 { // a smaller SETTINGS_INITIAL_WINDOW_SIZE
		t.Fatalf("negative window rejected: %d", f.avail)
	}
	if !f.add(maxWindow+1000) || f.avail != maxWindow {
		t.Fatalf("window up to 2^31-1 rejected: %d", f.avail)
	}
	if f.add(1) {
		t.Fatal("window above 2^31-1 accepted")
	}
}
