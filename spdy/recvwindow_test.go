package spdy

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// The controller's decisions, one recorded sequence per rule.
func TestRecvWindowDecides(t *testing.T) {
	ms := time.Millisecond
	type step struct {
		recv  int64         // bytes received first
		rtt   time.Duration // then a PING sample (0: none)
		deliv int64         // bytes that arrived during it
	}
	for _, tc := range []struct {
		name    string
		ceiling int64
		steps   []step
		want    int64
		cuts    int
	}{
		{"grows by every byte while no queue shows", 10 << 20,
			[]step{{0, 100 * ms, 0}, {50000, 0, 0}, {70000, 102 * ms, 120000}}, 65536 + 120000, 0},
		{"never above the configured window", 100000,
			[]step{{0, 100 * ms, 0}, {500000, 0, 0}}, 100000, 0},
		{"falls to the best rate at the base round trip plus a quarter once two samples show a queue", 10 << 20,
			[]step{{0, 100 * ms, 0}, {400000, 0, 0}, {0, 100 * ms, 150000}, {0, 160 * ms, 192000}, {0, 160 * ms, 192000}}, 187500, 1},
		{"one inflated sample between clean ones is a burst, not a queue", 10 << 20,
			[]step{{0, 100 * ms, 0}, {0, 100 * ms, 150000}, {0, 300 * ms, 150000}, {0, 100 * ms, 150000}, {40000, 0, 0}}, 65536 + 40000, 0},
		{"an inflated round trip while the rate still rises is the sender's own slow start", 10 << 20,
			[]step{{0, 100 * ms, 0}, {0, 100 * ms, 20000}, {0, 400 * ms, 200000}, {0, 400 * ms, 400000}, {40000, 0, 0}}, 65536 + 40000, 0},
		{"never below two frames", 10 << 20,
			[]step{{0, 100 * ms, 0}, {0, 100 * ms, 1000}, {0, 300 * ms, 1000}, {0, 300 * ms, 1000}}, RecvWindowFloor, 1},
		{"holds while a small queue stands", 10 << 20,
			[]step{{0, 100 * ms, 0}, {0, 100 * ms, 50000}, {0, 115 * ms, 50000}, {0, 115 * ms, 50000}, {40000, 0, 0}}, 65536, 0},
		{"a queue that passed without a fall lets the slow start go on", 10 << 20,
			[]step{{0, 100 * ms, 0}, {0, 100 * ms, 50000}, {0, 115 * ms, 50000}, {0, 115 * ms, 50000}, {0, 100 * ms, 50000}, {40000, 0, 0}}, 65536 + 40000, 0},
		{"after a fall it probes half as fast once the queue drains", 10 << 20,
			[]step{{0, 100 * ms, 0}, {0, 100 * ms, 100000}, {0, 200 * ms, 160000}, {0, 200 * ms, 160000}, {0, 101 * ms, 80000}, {40000, 0, 0}}, 65536 + 20000, 1},
		{"a few milliseconds over a tiny base is jitter, not a queue", 10 << 20,
			[]step{{0, 1 * ms, 0}, {0, 3 * ms, 60000}, {40000, 0, 0}}, 65536 + 40000, 0},
	} {
		w := newRecvWindow(tc.ceiling)
		for _, s := range tc.steps {
			w.received(s.recv, 0)
			if s.rtt > 0 {
				w.sample(s.rtt, s.deliv)
			}
		}
		if w.target != tc.want || w.cuts != tc.cuts {
			t.Errorf("%s: target %d after %d cuts, want %d after %d", tc.name, w.target, w.cuts, tc.want, tc.cuts)
		}
	}
}

// A PING out past the hold stops growth before its echo decides.
func TestRecvWindowLateEchoStopsGrowth(t *testing.T) {
	w := newRecvWindow(10 << 20)
	w.sample(100*time.Millisecond, 0)
	w.received(10000, 50*time.Millisecond)
	w.received(10000, 130*time.Millisecond)
	if want := int64(65536 + 10000); w.target != want {
		t.Errorf("target %d, want %d: growth goes on while the echo may still be on time, and stops once it is late", w.target, want)
	}
}

func TestConsumedToBatchesAndNeverShrinksACredit(t *testing.T) {
	f := inflow{avail: 65536}
	f.take(10000, 0)
	if d := f.consumedTo(10000, 65536); d != 0 {
		t.Errorf("10000 of 65536 consumed: update %d, want none (under a quarter)", d)
	}
	f.take(10000, 0)
	if d := f.consumedTo(10000, 65536); d != 20000 || f.avail != 65536 {
		t.Errorf("update %d to %d, want 20000 to 65536", d, f.avail)
	}
	if d := f.consumedTo(1, 200000); d != 200000-65536 {
		t.Errorf("grown target: update %d, want %d", d, 200000-65536)
	}
	if d := f.consumedTo(50000, 40000); d != 0 || f.avail != 200000 {
		t.Errorf("target under the credit: update %d, avail %d, want none and 200000 kept", d, f.avail)
	}
}

func TestAdaptiveSessionWindowNeedsSPDY31(t *testing.T) {
	c1, _ := tcpPipe(t)
	defer c1.Close()
	_, err := NewClientConn(c1, &ClientConfig{Config: Config{Version: "spdy/3", AdaptiveSessionWindow: true}})
	if ce, ok := err.(*ConfigError); !ok || ce.Field != "AdaptiveSessionWindow" {
		t.Fatalf("spdy/3 with an adaptive session window: err %v, want a ConfigError naming the field", err)
	}
}

// A 4 MiB response through a user-space bottleneck (4 MB/s, 20 ms each
// way, an unbounded queue): with a fixed 16 MiB session window the
// server puts the whole response in the queue; the adaptive window keeps
// the queue near the path's delivery at the base round trip. The body
// arrives whole either way.
func TestAdaptiveSessionWindowBoundsAQueue(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 4<<20/16)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	peak := map[bool]int64{}
	for _, adaptive := range []bool{false, true} {
		cli, srv, q := shapedPipe(t, 4e6, 20*time.Millisecond)
		ctx, cancel := context.WithCancel(context.Background())
		s := &Server{Handler: h}
		served := make(chan error, 1)
		go func() { served <- s.ServeConn(ctx, srv) }()
		cc, err := NewClientConn(cli, &ClientConfig{Config: Config{InitialWindowSize: 16 << 20, SessionWindowSize: 16 << 20, AdaptiveSessionWindow: adaptive}})
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, "https://example.test/big", nil)
		resp, err := cc.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("adaptive %v: %d bytes (%v), want the %d sent", adaptive, len(got), err, len(body))
		}
		rep := cc.RecvWindow()
		if rep.On != adaptive || (adaptive && (rep.Samples == 0 || rep.Cuts == 0)) {
			t.Errorf("adaptive %v: report %+v: want on only when asked, with samples and a fall", adaptive, rep)
		}
		cc.Close()
		<-served
		cancel()
		peak[adaptive] = q.peak()
	}
	t.Logf("queue peaks: fixed %d, adaptive %d bytes", peak[false], peak[true])
	if peak[false] < 2<<20 || peak[true] > 1<<20 {
		t.Errorf("queue peaks: fixed window %d bytes, adaptive %d: want the fixed one above 2 MiB and the adaptive one under 1 MiB", peak[false], peak[true])
	}
}

// shapedPipe is a client and a server connection over loopback TCP with a
// relay between them: server-to-client bytes wait delay, then leave at
// rate bytes/s from an unbounded queue; client-to-server bytes wait delay.
func shapedPipe(t *testing.T, rate float64, delay time.Duration) (client, server net.Conn, q *shaper) {
	cli, relayC := tcpPipe(t)
	relayS, srv := tcpPipe(t)
	q = &shaper{rate: rate, delay: delay}
	go q.run(relayS, relayC)
	up := &shaper{delay: delay}
	go up.run(relayC, relayS)
	t.Cleanup(func() { cli.Close(); srv.Close(); relayC.Close(); relayS.Close() })
	return cli, srv, q
}

// shaper moves bytes from src to dst after delay, at rate (0: as they
// come), remembering the most bytes it ever held.
type shaper struct {
	rate  float64
	delay time.Duration

	mu     sync.Mutex
	held   int64
	most   int64
	chunks chan shaped
}

type shaped struct {
	data []byte
	at   time.Time
}

func (q *shaper) peak() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.most
}

func (q *shaper) run(src, dst net.Conn) {
	q.chunks = make(chan shaped, 1<<16)
	go func() {
		defer close(q.chunks)
		for {
			buf := make([]byte, 16<<10)
			n, err := src.Read(buf)
			if n > 0 {
				q.mu.Lock()
				q.held += int64(n)
				q.most = max(q.most, q.held)
				q.mu.Unlock()
				q.chunks <- shaped{buf[:n], time.Now().Add(q.delay)}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range q.chunks {
		time.Sleep(time.Until(c.at))
		if q.rate > 0 {
			time.Sleep(time.Duration(float64(len(c.data)) / q.rate * float64(time.Second)))
		}
		q.mu.Lock()
		q.held -= int64(len(c.data))
		q.mu.Unlock()
		if _, err := dst.Write(c.data); err != nil {
			return
		}
	}
	dst.Close()
}
