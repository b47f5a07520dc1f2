package link

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// collector records delivered packets (copies) with their delivery times.
type collector struct {
	mu    sync.Mutex
	seqs  []uint32
	sizes []int
	times []int64
	all   chan struct{}
	want  int
}

func newCollector(want int) *collector { return &collector{want: want, all: make(chan struct{})} }

func (c *collector) deliver(pkt []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seqs = append(c.seqs, binary.BigEndian.Uint32(pkt))
	c.sizes = append(c.sizes, len(pkt))
	c.times = append(c.times, monoNow())
	if len(c.seqs) == c.want {
		close(c.all)
	}
	return nil
}

func (c *collector) wait(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case <-c.all:
	case <-time.After(d):
		c.mu.Lock()
		defer c.mu.Unlock()
		t.Fatalf("only %d of %d packets delivered", len(c.seqs), c.want)
	}
}

func packet(seq uint32, size int) []byte {
	p := make([]byte, size)
	binary.BigEndian.PutUint32(p, seq)
	for i := 4; i < size; i++ {
		p[i] = byte(seq + uint32(i))
	}
	return p
}

func startPipe(t *testing.T, cfg DirConfig, deliver func([]byte) error) *Pipe {
	t.Helper()
	p, err := NewPipe("test", cfg, deliver)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestPipeDeliversInOrderAfterDelayAndRate(t *testing.T) {
	const n = 300
	c := newCollector(n)
	delay := 5 * time.Millisecond
	p := startPipe(t, DirConfig{RateBps: 100_000_000, Delay: delay}, c.deliver)
	sent := make([]int64, n)
	for i := 0; i < n; i++ {
		sent[i] = monoNow()
		p.Enqueue(packet(uint32(i), 100+i))
		if i%50 == 0 {
			time.Sleep(time.Millisecond) // let the line go idle now and then
		}
	}
	c.wait(t, 10*time.Second)
	for i := 0; i < n; i++ {
		if c.seqs[i] != uint32(i) || c.sizes[i] != 100+i {
			t.Fatalf("delivery %d is packet %d (%d bytes), want packet %d (%d bytes)", i, c.seqs[i], c.sizes[i], i, 100+i)
		}
		// Never early: at least the delay plus the packet's own serialisation.
		minimum := int64(delay) + int64((100+i)*8*1000/100)
		if got := c.times[i] - sent[i]; got < minimum {
			t.Errorf("packet %d delivered after %d ns, earlier than delay+serialisation %d ns", i, got, minimum)
		}
	}
	ctr := p.Counters()
	if ctr.PktsOffered != n || ctr.PktsDelivered != n || ctr.PktsLost != 0 || ctr.PktsQueueDrop != 0 {
		t.Errorf("counters %+v", ctr)
	}
	wantBytes := uint64(n*100 + n*(n-1)/2)
	if ctr.BytesOffered != wantBytes || ctr.BytesDelivered != wantBytes {
		t.Errorf("bytes offered %d delivered %d, want %d", ctr.BytesOffered, ctr.BytesDelivered, wantBytes)
	}
	tm := p.Timing()
	if tm.Packets != n {
		t.Errorf("timing covers %d packets, want %d", tm.Packets, n)
	}
	// The per-load counters carry the same lateness the Timing report has,
	// and every packet was measured late by zero or more, never early.
	if ctr.LateMaxms != ms(tm.LateMax) || ctr.LateP99ms != ms(tm.LateP99) || ctr.LateP99ms < 0 || ctr.LateMaxms < ctr.LateP99ms {
		t.Errorf("counters' lateness p99 %v max %v ms, timing %v %v", ctr.LateP99ms, ctr.LateMaxms, tm.LateP99, tm.LateMax)
	}
}

func TestPipePayloadIntact(t *testing.T) {
	var mu sync.Mutex
	var got [][]byte
	done := make(chan struct{})
	p := startPipe(t, DirConfig{RateBps: 10_000_000, Delay: time.Millisecond}, func(pkt []byte) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, bytes.Clone(pkt))
		if len(got) == 50 {
			close(done)
		}
		return nil
	})
	buf := make([]byte, 1500)
	var want [][]byte
	for i := 0; i < 50; i++ {
		pk := packet(uint32(i), 40+i*29)
		want = append(want, pk)
		copy(buf, pk)
		p.Enqueue(buf[:len(pk)])
		for j := range buf {
			buf[j] = 0xEE // the pipe must have copied the packet
		}
	}
	<-done
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("packet %d corrupted", i)
		}
	}
}

func TestPipeQueueDropsCounted(t *testing.T) {
	// 64 kbit/s: a 1500-byte packet occupies the link for 187.5 ms, so a
	// burst of 100 packets certainly overflows a 10-packet queue.
	const n = 100
	var mu sync.Mutex
	delivered := 0
	p := startPipe(t, DirConfig{RateBps: 64_000, QueuePkts: 10}, func([]byte) error {
		mu.Lock()
		delivered++
		mu.Unlock()
		return nil
	})
	for i := 0; i < n; i++ {
		p.Enqueue(packet(uint32(i), 1500))
	}
	ctr := p.Counters()
	if ctr.PktsOffered != n || ctr.PktsQueueDrop == 0 || ctr.PktsQueueDrop > n-11 {
		t.Fatalf("counters %+v: want drops between 1 and %d", ctr, n-11)
	}
	accepted := n - ctr.PktsQueueDrop
	// The last accepted packet waits behind the others: its sojourn is the
	// serialisation of every accepted packet before it plus its own.
	if ctr.QDelayMaxms < float64(accepted-1)*187.5*0.98 {
		t.Errorf("max queueing delay %.1f ms, want about %.1f", ctr.QDelayMaxms, float64(accepted)*187.5)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if uint64(delivered) > accepted {
		t.Errorf("delivered %d, more than the %d accepted", delivered, accepted)
	}
}

func TestPipeRandomLossCounted(t *testing.T) {
	const n = 2000
	c := newCollector(0)
	c.want = -1
	p := startPipe(t, DirConfig{Loss: 0.1, Seed: 5}, c.deliver)
	for i := 0; i < n; i++ {
		p.Enqueue(packet(uint32(i), 100))
	}
	ctr := p.Counters()
	if ctr.PktsLost == 0 || ctr.PktsLost+ctr.PktsDelivered != n || ctr.PktsOffered != n {
		t.Errorf("counters %+v: lost+delivered must equal offered", ctr)
	}
	// Same seed, same losses.
	c2 := newCollector(0)
	c2.want = -1
	p2 := startPipe(t, DirConfig{Loss: 0.1, Seed: 5}, c2.deliver)
	for i := 0; i < n; i++ {
		p2.Enqueue(packet(uint32(i), 100))
	}
	if len(c.seqs) != len(c2.seqs) {
		t.Fatalf("same seed delivered %d vs %d packets", len(c.seqs), len(c2.seqs))
	}
	for i := range c.seqs {
		if c.seqs[i] != c2.seqs[i] {
			t.Fatalf("same seed lost different packets (delivery %d: %d vs %d)", i, c.seqs[i], c2.seqs[i])
		}
	}
}

func TestPipeInlineWhenNoRateNoDelay(t *testing.T) {
	var got []uint32
	p := startPipe(t, DirConfig{}, func(pkt []byte) error {
		got = append(got, binary.BigEndian.Uint32(pkt))
		return nil
	})
	for i := 0; i < 10; i++ {
		p.Enqueue(packet(uint32(i), 20))
		if len(got) != i+1 {
			t.Fatalf("packet %d not delivered synchronously", i)
		}
	}
}

func TestPipeTraceDriven(t *testing.T) {
	tr, err := NewTrace("t", []int64{1, 2, 3, 4}) // 12 Mbit/s
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector(40)
	p := startPipe(t, DirConfig{Trace: tr, RateBps: 1 /* ignored */, Delay: 2 * time.Millisecond}, c.deliver)
	start := monoNow()
	for i := 0; i < 40; i++ {
		p.Enqueue(packet(uint32(i), 1500))
	}
	c.wait(t, 10*time.Second)
	for i, s := range c.seqs {
		if s != uint32(i) {
			t.Fatalf("out of order at %d", i)
		}
	}
	// One packet per millisecond: the 40th cannot leave before 40 ms + delay.
	if got := c.times[39] - start; got < 41*msec {
		t.Errorf("40 packets over a 1-per-ms trace delivered in %.1f ms", float64(got)/1e6)
	}
}

func TestPipeLog(t *testing.T) {
	var buf bytes.Buffer
	p, err := NewPipe("down", DirConfig{RateBps: 64_000, QueuePkts: 1, Log: &buf}, func([]byte) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		p.Enqueue(packet(uint32(i), 1000))
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("log has %d lines, want 3:\n%s", len(lines), buf.String())
	}
	wantEvents := []string{"pass", "pass", "drop"}
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) != 6 || f[1] != "down" || f[2] != "1000" || f[3] != wantEvents[i] {
			t.Errorf("log line %d %q: want <ms> down 1000 %s <queued> <delay>", i, l, wantEvents[i])
		}
	}
	// The second packet waits for the first: 125 ms + its own 125 ms.
	if f := strings.Fields(lines[1]); f[4] != "0" || !strings.HasPrefix(f[5], "249.") && !strings.HasPrefix(f[5], "250.") {
		t.Errorf("second packet line %q: want 0 ahead (the first is on the wire) and ~250 ms", lines[1])
	}
}

func TestPipeLifecycle(t *testing.T) {
	deliveries := 0
	p, err := NewPipe("x", DirConfig{Delay: time.Hour / 200}, func([]byte) error { deliveries++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	p.Enqueue(packet(1, 10)) // before Start: discarded
	if p.Counters().PktsOffered != 0 {
		t.Error("a packet before Start was counted")
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err == nil {
		t.Error("second Start should fail")
	}
	for i := 0; i < 100; i++ {
		p.Enqueue(packet(uint32(i), 1000)) // in flight for 18 s: Close must not wait for them
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	p.Enqueue(packet(2, 10))
	if c := p.Counters(); c.PktsOffered != 100 || deliveries != 0 {
		t.Errorf("after Close: offered %d delivered %d", c.PktsOffered, deliveries)
	}
	if err := p.Start(); err == nil {
		t.Error("Start after Close should fail")
	}
	// A pipe never started closes cleanly.
	q, _ := NewPipe("y", DirConfig{}, func([]byte) error { return nil })
	if err := q.Close(); err != nil {
		t.Error(err)
	}
}

func TestPipeDeliverErrorsCounted(t *testing.T) {
	boom := errors.New("tun gone")
	p := startPipe(t, DirConfig{}, func([]byte) error { return boom })
	p.Enqueue(packet(1, 10))
	p.Enqueue(packet(2, 10))
	n, err := p.DeliverErrors()
	if n != 2 || !errors.Is(err, boom) {
		t.Errorf("DeliverErrors = %d, %v", n, err)
	}
}

func TestPipeResetCounters(t *testing.T) {
	p := startPipe(t, DirConfig{Loss: 0.5, Seed: 1}, func([]byte) error { return nil })
	for i := 0; i < 100; i++ {
		p.Enqueue(packet(uint32(i), 100))
	}
	p.ResetCounters()
	if c := p.Counters(); c != (p.Counters()) || c.PktsOffered != 0 || c.PktsLost != 0 || c.QDelayMaxms != 0 {
		t.Errorf("after reset: %+v", c)
	}
}

func TestNewPipeRejectsBadConfig(t *testing.T) {
	ok := func([]byte) error { return nil }
	bad := map[string]DirConfig{
		"negative":    {RateBps: -1},
		"delay":       {Delay: -time.Millisecond},
		"queue limit": {QueuePkts: -1},
		"loss":        {Loss: 1.5},
		"choose one":  {Loss: 0.1, GE: &GilbertElliott{P: 0.1, R: 0.5, LossBad: 1}},
		"Gilbert":     {GE: &GilbertElliott{P: 2, R: 0.5}},
	}
	for frag, cfg := range bad {
		_, err := NewPipe("dn", cfg, ok)
		if err == nil || !strings.Contains(err.Error(), frag) || !strings.Contains(err.Error(), "dn") {
			t.Errorf("config %+v: error %v; want one naming the pipe and mentioning %q", cfg, err, frag)
		}
	}
	if _, err := NewPipe("dn", DirConfig{}, nil); err == nil {
		t.Error("nil deliver accepted")
	}
}

func TestPipeSteadyStateDoesNotAllocate(t *testing.T) {
	done := make(chan struct{}, 1)
	p := startPipe(t, DirConfig{RateBps: 1_000_000_000, Delay: 10 * time.Microsecond}, func([]byte) error {
		select {
		case done <- struct{}{}:
		default:
		}
		return nil
	})
	pkt := packet(1, 1500)
	for i := 0; i < 200; i++ { // grow the ring and its buffers
		p.Enqueue(pkt)
	}
	allocs := testing.AllocsPerRun(200, func() {
		p.Enqueue(pkt)
		<-done
	})
	if allocs > 0 {
		t.Errorf("%.1f allocations per packet in steady state, want 0", allocs)
	}
}

// writeRecorder records each Write call separately.
type writeRecorder struct {
	mu     sync.Mutex
	writes [][]byte
}

func (w *writeRecorder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, bytes.Clone(p))
	return len(p), nil
}

func TestPipeLogSharedWriterGetsWholeLines(t *testing.T) {
	w := &writeRecorder{}
	var pipes []*Pipe
	for _, name := range []string{"up", "down"} {
		p, err := NewPipe(name, DirConfig{Log: w}, func([]byte) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		p.Start()
		pipes = append(pipes, p)
	}
	var wg sync.WaitGroup
	for _, p := range pipes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5000; i++ { // ~150 KB of log per pipe: several flushes
				p.Enqueue(packet(uint32(i), 100))
			}
		}()
	}
	wg.Wait()
	for _, p := range pipes {
		p.Close()
	}
	if len(w.writes) < 4 {
		t.Fatalf("only %d writes; the test needs several flushes", len(w.writes))
	}
	lines := 0
	for _, chunk := range w.writes {
		if len(chunk) == 0 || chunk[len(chunk)-1] != '\n' {
			t.Fatalf("a write ends mid-line: %q", chunk[max(0, len(chunk)-40):])
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(chunk), "\n"), "\n") {
			if f := strings.Fields(l); len(f) != 6 || f[3] != "pass" {
				t.Fatalf("malformed log line %q", l)
			}
			lines++
		}
	}
	if lines != 10000 {
		t.Errorf("%d log lines, want 10000", lines)
	}
}
