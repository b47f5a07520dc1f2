package link

import (
	"strings"
	"testing"
	"time"
)

const msec = int64(time.Millisecond)

func TestRateDepartureTimesExact(t *testing.T) {
	b := newBottleneck(10_000_000, nil, 0, 0, 0)
	// A burst at t=0: 1500 bytes take exactly 1.2 ms at 10 Mbit/s.
	for i := 1; i <= 5; i++ {
		v := b.arrive(0, 1500)
		if !v.accepted || v.finish != int64(i)*1_200_000 || v.start != int64(i-1)*1_200_000 {
			t.Fatalf("packet %d: %+v; want start %d finish %d", i, v, (i-1)*1_200_000, i*1_200_000)
		}
		// Packets waiting ahead exclude the one on the wire.
		if want := max(i-2, 0); v.queued != want {
			t.Errorf("packet %d: %d queued ahead, want %d", i, v.queued, want)
		}
	}
	// Arriving after the link went idle: starts at once.
	v := b.arrive(100*msec, 100)
	if v.start != 100*msec || v.finish != 100*msec+80_000 || v.queued != 0 {
		t.Errorf("idle arrival: %+v", v)
	}
}

func TestRateNoDriftOverFractionalNanoseconds(t *testing.T) {
	// 1000 bytes at 7 Mbit/s take 1142857.142857... ns; seven back to back
	// take exactly 8 ms.
	b := newBottleneck(7_000_000, nil, 0, 0, 0)
	var v verdict
	for i := 0; i < 7; i++ {
		v = b.arrive(0, 1000)
	}
	if v.finish != 8*msec {
		t.Errorf("seventh packet finishes at %d ns, want %d", v.finish, 8*msec)
	}
	// Over a long busy period the error stays below one nanosecond.
	b = newBottleneck(64_000, nil, 0, 0, 0)
	for i := 0; i < 64_000; i++ {
		v = b.arrive(0, 1)
	}
	if v.finish != 8*int64(time.Second) {
		t.Errorf("64000 one-byte packets at 64 kbit/s finish at %d ns, want 8 s", v.finish)
	}
}

func TestUnlimitedRatePassesAtOnce(t *testing.T) {
	b := newBottleneck(0, nil, 0, 1, 0)
	for i := 0; i < 100; i++ {
		v := b.arrive(5, 1500)
		if !v.accepted || v.start != 5 || v.finish != 5 {
			t.Fatalf("unlimited link: %+v", v)
		}
	}
}

func TestDroptailPackets(t *testing.T) {
	b := newBottleneck(10_000_000, nil, 0, 5, 0)
	accepted := 0
	for i := 0; i < 20; i++ {
		if b.arrive(0, 1500).accepted {
			accepted++
		}
	}
	// One packet goes straight onto the wire, five wait, the rest drop.
	if accepted != 6 {
		t.Fatalf("accepted %d of a 20-packet burst with a 5-packet queue, want 6", accepted)
	}
	if got := b.queueLen(0); got != 5 {
		t.Errorf("queue length %d, want 5", got)
	}
	// Once the first packet is done, the second is on the wire and a slot frees.
	if !b.arrive(1_200_000, 1500).accepted {
		t.Error("a slot should free when a waiting packet starts transmission")
	}
	if b.arrive(1_200_000, 1500).accepted {
		t.Error("the queue is full again")
	}
	// The last accepted packet waited behind 6 others: 7 × 1.2 ms sojourn.
	b2 := newBottleneck(10_000_000, nil, 0, 5, 0)
	var last verdict
	for i := 0; i < 6; i++ {
		last = b2.arrive(0, 1500)
	}
	if last.finish != 6*1_200_000 {
		t.Errorf("last accepted finishes at %d, want %d", last.finish, 6*1_200_000)
	}
}

func TestDroptailBytes(t *testing.T) {
	b := newBottleneck(1_000_000, nil, 0, 0, 3000)
	n := 0
	for i := 0; i < 10; i++ {
		if b.arrive(0, 1500).accepted {
			n++
		}
	}
	if n != 3 { // one on the wire + 3000 bytes waiting
		t.Errorf("1500-byte packets: accepted %d, want 3", n)
	}
	b = newBottleneck(1_000_000, nil, 0, 0, 3000)
	n = 0
	for i := 0; i < 10; i++ {
		if b.arrive(0, 1000).accepted {
			n++
		}
	}
	if n != 4 {
		t.Errorf("1000-byte packets: accepted %d, want 4", n)
	}
	// A small packet still fits when a big one does not.
	b = newBottleneck(1_000_000, nil, 0, 0, 3000)
	b.arrive(0, 1500)
	b.arrive(0, 1500)
	b.arrive(0, 1000)
	if b.arrive(0, 600).accepted {
		t.Error("600 bytes on top of 2500 waiting exceeds 3000")
	}
	if !b.arrive(0, 500).accepted {
		t.Error("500 bytes on top of 2500 waiting fits 3000")
	}
}

func mustTrace(t *testing.T, ms ...int64) *Trace {
	t.Helper()
	tr, err := NewTrace("test", ms)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestTraceSemantics(t *testing.T) {
	tr := mustTrace(t, 5, 10) // opportunities at 5, 10, 15, 20, 25, ... ms
	cases := []struct {
		name   string
		arrive []int64 // ms
		sizes  []int
		finish []int64 // ms
	}{
		{"one packet waits for the first opportunity", []int64{0}, []int{1500}, []int64{5}},
		{"back to back use consecutive opportunities", []int64{0, 0, 0}, []int{1500, 1500, 1500}, []int64{5, 10, 15}},
		{"an opportunity carries 1500 bytes of small packets", []int64{0, 0, 0, 0}, []int{500, 500, 500, 500}, []int64{5, 5, 5, 10}},
		{"a large packet spans opportunities", []int64{0}, []int{3000}, []int64{10}},
		{"arriving exactly at an opportunity misses it", []int64{5}, []int{100}, []int64{10}},
		{"leftover bytes go to a packet already queued", []int64{0, 4}, []int{500, 1000}, []int64{5, 5}},
		{"leftover bytes are wasted once the instant passed", []int64{0, 6}, []int{500, 1000}, []int64{5, 10}},
		{"the trace wraps with its last timestamp as period", []int64{12, 21}, []int{1500, 1500}, []int64{15, 25}},
		{"many periods later", []int64{1001}, []int{10}, []int64{1005}},
		{"a busy link keeps consuming across the wrap", []int64{9, 9, 9}, []int{1500, 1500, 1500}, []int64{10, 15, 20}},
	}
	for _, c := range cases {
		b := newBottleneck(0, tr, 0, 0, 0)
		for i := range c.arrive {
			v := b.arrive(c.arrive[i]*msec, c.sizes[i])
			if !v.accepted || v.finish != c.finish[i]*msec {
				t.Errorf("%s: packet %d finished at %.3f ms, want %d", c.name, i, float64(v.finish)/1e6, c.finish[i])
			}
		}
	}
}

func TestTraceBaseAndZeroStart(t *testing.T) {
	// Offsets 0, 0, 10: two opportunities at the start of each 10 ms period
	// and one at its end, where the next period's two begin: 0,0,10,10,10,20,...
	tr := mustTrace(t, 0, 0, 10)
	base := 1000 * msec
	b := newBottleneck(0, tr, base, 0, 0)
	want := []int64{10, 10, 10, 20, 20, 20, 30}
	for i, w := range want {
		v := b.arrive(base+1*msec, 1500)
		if v.finish != base+w*msec {
			t.Errorf("packet %d finished at %+.3f ms after base, want %d", i, float64(v.finish-base)/1e6, w)
		}
	}
}

func TestTraceStartCountsAsWaiting(t *testing.T) {
	// Mahimahi's droptail counts packets not yet being transmitted; with a
	// trace that is every packet whose first opportunity is still ahead.
	tr := mustTrace(t, 10)
	b := newBottleneck(0, tr, 0, 2, 0)
	n := 0
	for i := 0; i < 5; i++ {
		if b.arrive(0, 1500).accepted {
			n++
		}
	}
	if n != 2 {
		t.Errorf("accepted %d before the first opportunity with a 2-packet queue, want 2", n)
	}
}

func TestTraceMeanRate(t *testing.T) {
	tr := mustTrace(t, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10) // one per ms = 12 Mbit/s
	if got := tr.MeanRateBps(); !near(got, 12e6, 1) {
		t.Errorf("mean rate %v, want 12e6", got)
	}
	if tr.Period() != 10*time.Millisecond || tr.Len() != 10 {
		t.Errorf("period %v len %d", tr.Period(), tr.Len())
	}
}

func TestParseTraceErrors(t *testing.T) {
	bad := map[string]string{
		"1\nabc\n3\n": "x.trace:2: \"abc\" is not",
		"1\n5\n3\n":   "x.trace:3: timestamp 3 is before",
		"":            "x.trace: no timestamps",
		"0\n0\n":      "last timestamp is 0",
		"1\n\n2\n":    "x.trace:2: empty line",
		"-4\n":        "x.trace:1:",
		"1.5\n":       "x.trace:1:",
	}
	for in, frag := range bad {
		_, err := ParseTrace(strings.NewReader(in), "x.trace")
		if err == nil || !strings.Contains(err.Error(), frag) {
			t.Errorf("ParseTrace(%q) error = %v; want one containing %q", in, err, frag)
		}
	}
	tr, err := ParseTrace(strings.NewReader("0\n3\n3\n 7 \n"), "ok")
	if err != nil || tr.Len() != 4 || tr.Period() != 7*time.Millisecond {
		t.Errorf("valid trace: %v, %v", tr, err)
	}
	if _, err := LoadTrace("/nonexistent/sl-trace"); err == nil || !strings.Contains(err.Error(), "/nonexistent/sl-trace") {
		t.Errorf("missing file error %v should name the file", err)
	}
}
