package link

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// OpportunityBytes is what one Mahimahi delivery opportunity carries.
// Mahimahi's link_queue counts 1504 bytes because its packets include the
// 4-byte TUN packet-information header; our TUN devices run without that
// header, so the same opportunity carries one 1500-byte IP packet.
const OpportunityBytes = 1500

// Trace is a Mahimahi packet-delivery trace: each entry is a millisecond
// offset at which the link may deliver up to OpportunityBytes. Several
// entries with the same offset are several opportunities at that instant.
// After the last entry the trace starts again, shifted by the last offset
// (Mahimahi's "repeat" behaviour).
type Trace struct {
	Name string  // the file it came from (for messages)
	ms   []int64 // non-decreasing offsets
}

// LoadTrace reads a Mahimahi trace file.
func LoadTrace(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	return ParseTrace(f, path)
}

// ParseTrace reads a trace from r; name is used in error messages. The rules
// are Mahimahi's: one non-negative integer per line, no empty lines,
// timestamps never decrease, at least one line, and the last timestamp is
// above zero (it is the period with which the trace repeats).
func ParseTrace(r io.Reader, name string) (*Trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	t := &Trace{Name: name}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			return nil, fmt.Errorf("%s:%d: empty line (a trace has one millisecond timestamp per line)", name, line)
		}
		v, err := strconv.ParseInt(text, 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%s:%d: %q is not a non-negative integer millisecond timestamp", name, line, text)
		}
		if v > int64(time.Duration(1<<62)/time.Millisecond) {
			return nil, fmt.Errorf("%s:%d: timestamp %d ms is too large", name, line, v)
		}
		if n := len(t.ms); n > 0 && v < t.ms[n-1] {
			return nil, fmt.Errorf("%s:%d: timestamp %d is before the previous one (%d); timestamps must not decrease", name, line, v, t.ms[n-1])
		}
		t.ms = append(t.ms, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, line+1, err)
	}
	if len(t.ms) == 0 {
		return nil, fmt.Errorf("%s: no timestamps (the trace is empty)", name)
	}
	if t.ms[len(t.ms)-1] == 0 {
		return nil, fmt.Errorf("%s: the last timestamp is 0; a trace must last a nonzero time because it repeats with that period", name)
	}
	return t, nil
}

// NewTrace builds a trace from millisecond offsets, applying the same rules
// as ParseTrace.
func NewTrace(name string, ms []int64) (*Trace, error) {
	var b strings.Builder
	for _, v := range ms {
		fmt.Fprintf(&b, "%d\n", v)
	}
	return ParseTrace(strings.NewReader(b.String()), name)
}

// Len is the number of delivery opportunities in one period.
func (t *Trace) Len() int { return len(t.ms) }

// Period is the time after which the trace repeats.
func (t *Trace) Period() time.Duration {
	return time.Duration(t.ms[len(t.ms)-1]) * time.Millisecond
}

// MeanRateBps is the average capacity of the trace in bit/s.
func (t *Trace) MeanRateBps() float64 {
	return float64(len(t.ms)) * OpportunityBytes * 8 / t.Period().Seconds()
}

// oppTime is the time of absolute opportunity k (counting across repeats),
// in nanoseconds after the trace's start.
func (t *Trace) oppTime(k int64) int64 {
	n := int64(len(t.ms))
	wrap, i := k/n, k%n
	return (wrap*t.ms[n-1] + t.ms[i]) * int64(time.Millisecond)
}

// firstOppAfter returns the index of the first opportunity strictly after
// rel nanoseconds from the trace's start. Mahimahi burns every opportunity
// at or before the current time before it accepts a new packet, so a packet
// arriving exactly at an opportunity cannot use it.
func (t *Trace) firstOppAfter(rel int64) int64 {
	n := int64(len(t.ms))
	if rel < 0 {
		rel = -1
	}
	period := t.ms[n-1] * int64(time.Millisecond)
	wrap := int64(0)
	if rel >= 0 {
		wrap = rel / period
	}
	for {
		base := wrap * period
		i := sort.Search(int(n), func(i int) bool { return base+t.ms[i]*int64(time.Millisecond) > rel })
		if i < int(n) {
			return wrap*n + int64(i)
		}
		wrap++
	}
}
