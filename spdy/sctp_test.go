package spdy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spdylab/spdylab/sctp"
)

func TestSCTPStreamForWrapsAboveTheStreamCount(t *testing.T) {
	// S = 4: SCTP streams 1..3 carry SPDY streams, then wrap back to 1.
	want := map[uint32]uint16{1: 1, 2: 2, 3: 3, 4: 1, 5: 2, 6: 3, 7: 1, 19: 1, 20: 2}
	for n, sid := range want {
		if got := SCTPStreamFor(n, 4); got != sid {
			t.Errorf("SCTPStreamFor(%d, 4) = %d, want %d", n, got, sid)
		}
	}
	if got := SCTPStreamFor(0x7fffffff, 65535); got != uint16((0x7fffffff-1)%65534+1) {
		t.Errorf("largest id: %d", got)
	}
}

// frameSeen is one frame with the SCTP stream it travelled on.
type frameSeen struct {
	sent   bool
	sid    uint16
	typ    FrameType
	stream uint32
}

type frameLog struct {
	mu     sync.Mutex
	frames []frameSeen
}

func (l *frameLog) observe(sent bool, sid uint16, f Frame) {
	l.mu.Lock()
	l.frames = append(l.frames, frameSeen{sent, sid, f.Type(), streamOf(f)})
	l.mu.Unlock()
}

func (l *frameLog) all() []frameSeen {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]frameSeen(nil), l.frames...)
}

// sctpPair is a client session talking to a Server over a real SCTP
// association on loopback UDP.
type sctpPair struct {
	cc       *ClientConn
	cliLog   *frameLog
	srvLog   *frameLog
	cli, srv *sctp.Assoc
	served   chan error
}

func newSCTPPair(t *testing.T, cliCfg, srvCfg sctp.Config, control bool, h http.Handler) *sctpPair {
	t.Helper()
	spc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l, err := sctp.Listen(spc, srvCfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	cpc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cli, err := sctp.Dial(ctx, cpc, l.Addr(), cliCfg)
	if err != nil {
		t.Fatal(err)
	}
	p := &sctpPair{cli: cli, cliLog: &frameLog{}, srvLog: &frameLog{}, served: make(chan error, 1)}
	p.cc, err = NewClientConnSCTP(cli, nil, SCTPOptions{ControlStream: control, Observe: p.cliLog.observe})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	p.srv = srv
	s := &Server{Handler: h}
	go func() {
		p.served <- s.ServeSCTP(context.Background(), srv, SCTPOptions{ControlStream: control, Observe: p.srvLog.observe})
	}()
	t.Cleanup(func() {
		p.cc.Close()
		select {
		case <-p.served:
		case <-time.After(30 * time.Second):
			t.Error("ServeSCTP did not return after the client closed")
		}
	})
	return p
}

// bytesHandler serves /n/<size> with deterministic bytes.
func bytesHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Path[len("/n/"):])
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(n))
		w.Write(patternBytes(n))
	})
}

func patternBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func (p *sctpPair) fetch(ctx context.Context, size int) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://s.test/n/%d", size), nil)
	if err != nil {
		return "", err
	}
	resp, err := p.cc.RoundTrip(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if len(b) != size {
		return "", fmt.Errorf("got %d bytes, want %d", len(b), size)
	}
	return sha(b), nil
}

// fetchAll runs n concurrent requests of size bytes each and checks every body.
func (p *sctpPair) fetchAll(t *testing.T, n, size int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	want := sha(patternBytes(size))
	errs := make(chan error, n)
	for range n {
		go func() {
			got, err := p.fetch(ctx, size)
			if err == nil && got != want {
				err = fmt.Errorf("body hash %s, want %s", got, want)
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func smallStreams(s int) sctp.Config {
	return sctp.Config{OutboundStreams: s, InboundStreams: s, SACKEveryPacket: true, RTOMin: 200 * time.Millisecond}
}

// checkMapping asserts that every frame in log travelled on the SCTP stream
// the mapping gives for s streams.
func checkMapping(t *testing.T, who string, log []frameSeen, s int, control bool) (dataStreams map[uint16]bool) {
	t.Helper()
	dataStreams = map[uint16]bool{}
	for _, f := range log {
		want := uint16(0)
		if f.stream != 0 && (!control || f.typ == TypeData) {
			want = uint16((f.stream-1)%uint32(s-1) + 1)
		}
		if f.sid != want {
			t.Errorf("%s: %s of SPDY stream %d (sent=%v) on SCTP stream %d, want %d", who, f.typ, f.stream, f.sent, f.sid, want)
		}
		if f.typ == TypeData {
			dataStreams[f.sid] = true
		}
	}
	return dataStreams
}

func TestSPDYOverSCTPWrapAround(t *testing.T) {
	for _, control := range []bool{false, true} {
		t.Run(fmt.Sprintf("control=%v", control), func(t *testing.T) {
			const s = 4
			p := newSCTPPair(t, smallStreams(s), smallStreams(s), control, bytesHandler())
			p.fetchAll(t, 10, 20000) // SPDY streams 1, 3, ..., 19
			if out, in := p.cli.Streams(); out != s || in != s {
				t.Fatalf("negotiated %d/%d streams, want %d", out, in, s)
			}
			cli, srv := p.cliLog.all(), p.srvLog.all()
			used := checkMapping(t, "client", cli, s, control)
			checkMapping(t, "server", srv, s, control)
			// Streams 1..19 (odd) map to 1, 3, 2, 1, 3, 2, ...: all three
			// data streams are used, so the wrap-around happened.
			for sid := uint16(1); sid < s; sid++ {
				if !used[sid] {
					t.Errorf("no DATA arrived on SCTP stream %d; streams used: %v", sid, used)
				}
			}
			var ctrl0, ctrlElsewhere int
			for _, f := range cli {
				if f.typ != TypeData && f.stream != 0 {
					if f.sid == 0 {
						ctrl0++
					} else {
						ctrlElsewhere++
					}
				}
			}
			if control && (ctrl0 == 0 || ctrlElsewhere != 0) {
				t.Errorf("control stream: %d stream control frames on stream 0, %d elsewhere", ctrl0, ctrlElsewhere)
			}
			if !control && (ctrlElsewhere == 0 || ctrl0 != 0) {
				t.Errorf("no control stream: %d stream control frames on stream 0, %d on mapped streams", ctrl0, ctrlElsewhere)
			}
		})
	}
}

func TestSPDYOverSCTPTransfers(t *testing.T) {
	for _, control := range []bool{false, true} {
		t.Run(fmt.Sprintf("control=%v", control), func(t *testing.T) {
			cfg := sctp.Config{SACKEveryPacket: true, RTOMin: 200 * time.Millisecond, SendBuffer: 64 << 10, ReceiveBuffer: 64 << 10, MaxBurst: sctp.MaxBurstUnlimited}
			p := newSCTPPair(t, cfg, cfg, control, bytesHandler())
			p.fetchAll(t, 1, 3<<20)  // one 3 MiB response, checked by hash
			p.fetchAll(t, 50, 30000) // 50 concurrent streams
			s, _ := p.srv.Streams()
			checkMapping(t, "client", p.cliLog.all(), s, control)
		})
	}
}

func TestSPDYOverSCTPPeerOffersFewerStreams(t *testing.T) {
	// The client asks for 10 outbound streams, the server accepts 3 inbound:
	// client-to-server frames use 3 streams, server-to-client 10.
	cli := smallStreams(10)
	srv := smallStreams(10)
	srv.InboundStreams = 3
	p := newSCTPPair(t, cli, srv, false, bytesHandler())
	p.fetchAll(t, 8, 5000)
	if out, in := p.cli.Streams(); out != 3 || in != 10 {
		t.Fatalf("client streams out %d in %d, want 3 and 10", out, in)
	}
	var sent, received []frameSeen
	for _, f := range p.cliLog.all() {
		if f.sent {
			sent = append(sent, f)
		} else {
			received = append(received, f)
		}
	}
	checkMapping(t, "client sent", sent, 3, false)
	checkMapping(t, "client received", received, 10, false)
}

func TestSPDYOverSCTPOneStreamIsAClearError(t *testing.T) {
	cli := smallStreams(10)
	srv := smallStreams(10)
	srv.InboundStreams = 1 // leaves the client no stream for SPDY streams
	p := newSCTPPair(t, cli, srv, false, bytesHandler())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := p.fetch(ctx, 10)
	if err == nil || !strings.Contains(err.Error(), "needs at least 2") {
		t.Fatalf("request over a 1-stream association: %v, want an error naming the stream count", err)
	}
}

func TestSPDYOverSCTPAbortMidResponse(t *testing.T) {
	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000000")
		w.Write(patternBytes(100000))
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
	})
	p := newSCTPPair(t, smallStreams(10), smallStreams(10), true, h)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() { _, err := p.fetch(ctx, 1000000); errc <- err }()
	<-started
	p.srv.Abort()
	err := <-errc
	if err == nil {
		t.Fatal("a response cut by ABORT completed")
	}
	if ctx.Err() != nil {
		t.Fatalf("the client hung until the deadline: %v", err)
	}
	select {
	case <-p.cc.Done():
	case <-ctx.Done():
		t.Fatal("client session did not end after the ABORT")
	}
	if !errors.Is(p.cc.Err(), sctp.ErrAborted) {
		t.Errorf("session error %v, want it to wrap sctp.ErrAborted", p.cc.Err())
	}
}

// rawPeer is the server end of an association driven by hand, to send the
// client frames on streams of the test's choosing.
func rawSCTPClient(t *testing.T, control bool) (*ClientConn, *sctp.Assoc) {
	t.Helper()
	spc, _ := net.ListenPacket("udp4", "127.0.0.1:0")
	l, err := sctp.Listen(spc, smallStreams(4))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	cpc, _ := net.ListenPacket("udp4", "127.0.0.1:0")
	cli, err := sctp.Dial(context.Background(), cpc, l.Addr(), smallStreams(4))
	if err != nil {
		t.Fatal(err)
	}
	cc, err := NewClientConnSCTP(cli, nil, SCTPOptions{ControlStream: control})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	srv, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return cc, srv
}

func encodeFrame(t *testing.T, f Frame) []byte {
	var buf writeBuffer
	fr := NewFramer(&buf, nil, 0)
	if err := fr.WriteFrame(f); err != nil {
		t.Fatal(err)
	}
	fr.Flush()
	return buf.b
}

func TestSPDYOverSCTPBadMessagesEndTheSession(t *testing.T) {
	cases := []struct {
		name    string
		control bool
		sid     uint16
		msg     func(t *testing.T) []byte
		want    string
	}{
		{"SETTINGS off stream 0", false, 2, func(t *testing.T) []byte {
			return encodeFrame(t, &SettingsFrame{Entries: []Setting{{ID: SettingMaxConcurrentStreams, Value: 5}}})
		}, "mapping puts it on 0"},
		{"PING on a data stream with the control stream", true, 1, func(t *testing.T) []byte {
			return encodeFrame(t, &PingFrame{ID: 2})
		}, "mapping puts it on 0"},
		{"two frames in one message", false, 0, func(t *testing.T) []byte {
			return append(encodeFrame(t, &PingFrame{ID: 2}), encodeFrame(t, &PingFrame{ID: 4})...)
		}, "one frame per message"},
		{"truncated frame", false, 0, func(t *testing.T) []byte {
			return encodeFrame(t, &PingFrame{ID: 2})[:10]
		}, "truncated frame"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cc, raw := rawSCTPClient(t, c.control)
			if err := raw.SendMessage(c.sid, 0, c.msg(t)); err != nil {
				t.Fatal(err)
			}
			select {
			case <-cc.Done():
			case <-time.After(30 * time.Second):
				t.Fatal("session survived a bad message")
			}
			if err := cc.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("session error %v, want one saying %q", err, c.want)
			}
			// The client told the peer why: GOAWAY PROTOCOL_ERROR on stream 0.
			buf := make([]byte, 1<<16)
			for {
				n, sid, _, err := raw.RecvMessage(buf)
				if err != nil {
					t.Fatalf("no GOAWAY before the end: %v", err)
				}
				dec := NewFramer(nil, &msgReader{b: buf[:n]}, 0)
				f, _ := dec.ReadFrame()
				if g, ok := f.(*GoAwayFrame); ok {
					if g.Status != GoAwayProtocolError || sid != 0 {
						t.Fatalf("GOAWAY %v on SCTP stream %d", g.Status, sid)
					}
					return
				}
			}
		})
	}
}

func TestSPDYOverSCTPLeavesNothingBehind(t *testing.T) {
	base := runtime.NumGoroutine()
	t.Run("sessions", func(t *testing.T) {
		p := newSCTPPair(t, smallStreams(4), smallStreams(4), true, bytesHandler())
		p.fetchAll(t, 5, 10000)
		p.srv.Abort() // one side aborts, the other must still wind down
	})
	// The stack's timer goroutine stops a few seconds after the last socket.
	var n int
	for range 300 {
		if n = runtime.NumGoroutine(); n <= base {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	t.Fatalf("goroutines: %d before, %d after\n%s", base, n, buf[:runtime.Stack(buf, true)])
}
