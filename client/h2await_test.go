package client

import (
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// limitRun is a connection whose server allows limit streams, loaded with
// requests requests at once.
type limitRun struct {
	limit, requests int
	sent            atomic.Int32 // HEADERS the client has sent
	maxOpen         chan int     // the most streams the server saw open at once
	violations      chan error   // streams beyond the limit, failed requests
	wg              sync.WaitGroup
}

func newLimitRun(limit, requests int) *limitRun {
	return &limitRun{limit: limit, requests: requests, maxOpen: make(chan int, 1), violations: make(chan error, requests+1)}
}

// trace counts the HEADERS the client sends (H2Config.Trace).
func (lr *limitRun) trace(ev FrameEvent) {
	if ev.Sent && ev.Type == http2.FrameHeaders {
		lr.sent.Add(1)
	}
}

// peer plays the server: it sends its SETTINGS only after the client's
// first HEADERS, as Go's server does over TLS 1.3 (its handshake ends on
// the client's Finished), or, with settingsAt, first, once settingsAt is
// closed. It answers the streams oldest first, each only once every
// HEADERS the client has sent so far has been read, so that a HEADERS
// beyond the limit is seen before a slot frees, as a real server would see
// (and refuse) it.
func (lr *limitRun) peer(settingsAt <-chan struct{}) func(net.Conn, *http2.Framer) {
	return func(_ net.Conn, fr *http2.Framer) {
		var open []uint32
		most, read := 0, 0
		defer func() { lr.maxOpen <- most }()
		readOne := func() bool {
			id := readHeaders(fr)
			if id == 0 {
				lr.violations <- fmt.Errorf("connection ended after %d requests", read)
				return false
			}
			read++
			open = append(open, id)
			most = max(most, len(open))
			if len(open) > lr.limit {
				lr.violations <- fmt.Errorf("stream %d opened with %d streams open: a server advertising %d would refuse it", id, len(open)-1, lr.limit)
				return false
			}
			return true
		}
		if settingsAt != nil {
			<-settingsAt
		} else if !readOne() {
			return
		}
		fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: uint32(lr.limit)})
		sent := func() int { return int(lr.sent.Load()) }
		for answered := 0; answered < lr.requests; {
			if !pollUntil(func() bool { return sent() > read || len(open) == lr.limit || read == lr.requests }) {
				lr.violations <- fmt.Errorf("stuck: %d requests read, %d open, %d answered", read, len(open), answered)
				return
			}
			if sent() > read {
				if !readOne() {
					return
				}
				continue
			}
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: open[0], BlockFragment: []byte{0x88}, EndHeaders: true, EndStream: true})
			open = open[1:]
			answered++
		}
	}
}

// start sends the requests, each from its own goroutine.
func (lr *limitRun) start(cc *H2Conn) {
	for i := range lr.requests {
		lr.wg.Add(1)
		go func() {
			defer lr.wg.Done()
			if err := roundTripErr(cc, 10*time.Second); err != nil {
				lr.violations <- fmt.Errorf("request %d: %w", i, err)
			}
		}()
	}
}

// check waits for the requests and fails t unless all succeeded and the
// server saw exactly limit streams open at most.
func (lr *limitRun) check(t *testing.T) {
	t.Helper()
	lr.wg.Wait()
	if most := <-lr.maxOpen; most != lr.limit {
		t.Errorf("at most %d streams were open at once, want the limit %d", most, lr.limit)
	}
	close(lr.violations)
	for err := range lr.violations {
		t.Error(err)
	}
}

// pollUntil polls cond until it holds, false if it never does within a
// generous bound (a hang guard, not a timing assertion).
func pollUntil(cond func() bool) bool {
	for range 3000 {
		if cond() {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}

func TestH2AwaitPeerSettingsKeepsToTheAdvertisedLimit(t *testing.T) {
	lr := newLimitRun(2, 10)
	cc := rawScripted(t, H2Config{AwaitPeerSettings: true, Trace: lr.trace}, lr.peer(nil))
	lr.start(cc)
	lr.check(t)
	if n := cc.Stats().Refused; n != 0 {
		t.Errorf("%d streams refused", n)
	}
}

// Requests admitted under the 100 streams assumed before the server's
// SETTINGS but written after them wait for a slot under the new limit:
// after our SETTINGS ACK, Go's server answers a stream beyond its limit
// with PROTOCOL_ERROR, which is not retried.
func TestH2StreamsAdmittedBeforeSettingsKeepToThem(t *testing.T) {
	lr := newLimitRun(1, 3)
	settingsAt := make(chan struct{})
	cc := rawScripted(t, H2Config{Trace: lr.trace}, lr.peer(settingsAt))
	// Hold the writer so that every request is admitted and waits to
	// write its HEADERS while the SETTINGS arrive.
	cc.wmu.Lock()
	held := true
	t.Cleanup(func() { // before Close, which needs the writer
		if held {
			cc.wmu.Unlock()
		}
	})
	lr.start(cc)
	underLock := func(cond func() bool) func() bool {
		return func() bool {
			cc.mu.Lock()
			defer cc.mu.Unlock()
			return cond()
		}
	}
	if !pollUntil(underLock(func() bool { return cc.active == lr.requests })) {
		t.Fatal("requests not admitted")
	}
	close(settingsAt)
	if !pollUntil(underLock(func() bool { return cc.gotSettings })) {
		t.Fatal("SETTINGS never applied")
	}
	held = false
	cc.wmu.Unlock()
	lr.check(t)
}
