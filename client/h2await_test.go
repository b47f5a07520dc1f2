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

// limitedH2Peer plays a server that allows limit streams and sends its
// SETTINGS only after the client's first HEADERS, as Go's server does over
// TLS 1.3 (its handshake ends on the client's Finished), or, with
// settingsAt, first, once settingsAt is closed. It answers the
// streams oldest first, each only once every HEADERS the client has sent
// so far has been read, so that a HEADERS beyond the limit is seen before a
// slot frees, as a real server would see (and refuse) it. It reports a
// stream beyond the limit on violations and the most streams open at once
// on maxOpen.
func limitedH2Peer(limit, requests int, settingsAt <-chan struct{}, sent *atomic.Int32, maxOpen chan<- int, violations chan<- error) func(net.Conn, *http2.Framer) {
	return func(_ net.Conn, fr *http2.Framer) {
		var open []uint32
		most, read := 0, 0
		defer func() { maxOpen <- most }()
		readOne := func() bool {
			id := readHeaders(fr)
			if id == 0 {
				violations <- fmt.Errorf("connection ended after %d requests", read)
				return false
			}
			read++
			open = append(open, id)
			most = max(most, len(open))
			if len(open) > limit {
				violations <- fmt.Errorf("stream %d opened with %d streams open: a server advertising %d would refuse it", id, len(open)-1, limit)
				return false
			}
			return true
		}
		if settingsAt != nil {
			<-settingsAt
		} else if !readOne() {
			return
		}
		fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: uint32(limit)})
		for answered := 0; answered < requests; {
			if !pollUntil(func() bool { return int(sent.Load()) > read || len(open) == limit || read == requests }) {
				violations <- fmt.Errorf("stuck: %d requests read, %d open, %d answered", read, len(open), answered)
				return
			}
			if int(sent.Load()) > read {
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
	const limit, requests = 2, 10
	var sent atomic.Int32
	maxOpen, violations := make(chan int, 1), make(chan error, requests+1)
	cc := rawScripted(t, H2Config{AwaitPeerSettings: true, Trace: func(ev FrameEvent) {
		if ev.Sent && ev.Type == http2.FrameHeaders {
			sent.Add(1)
		}
	}}, limitedH2Peer(limit, requests, nil, &sent, maxOpen, violations))
	wg := startRequests(cc, requests, violations)
	wg.Wait()
	if most := <-maxOpen; most != limit {
		t.Errorf("at most %d streams were open at once, want the limit %d", most, limit)
	}
	close(violations)
	for err := range violations {
		t.Error(err)
	}
	if n := cc.Stats().Refused; n != 0 {
		t.Errorf("%d streams refused", n)
	}
}

// startRequests starts n requests on cc, each reporting its error on errs.
func startRequests(cc *H2Conn, n int, errs chan<- error) *sync.WaitGroup {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := roundTripErr(cc, 10*time.Second); err != nil {
				errs <- fmt.Errorf("request %d: %w", i, err)
			}
		}()
	}
	return &wg
}

// Requests admitted under the 100 streams assumed before the server's
// SETTINGS but written after them wait for a slot under the new limit:
// after our SETTINGS ACK, Go's server answers a stream beyond its limit
// with PROTOCOL_ERROR, which is not retried.
func TestH2StreamsAdmittedBeforeSettingsKeepToThem(t *testing.T) {
	const limit, requests = 1, 3
	var sent atomic.Int32
	settingsAt := make(chan struct{})
	maxOpen, violations := make(chan int, 1), make(chan error, requests+1)
	cc := rawScripted(t, H2Config{Trace: func(ev FrameEvent) {
		if ev.Sent && ev.Type == http2.FrameHeaders {
			sent.Add(1)
		}
	}}, limitedH2Peer(limit, requests, settingsAt, &sent, maxOpen, violations))
	// Hold the writer so that every request is admitted and waits to
	// write its HEADERS while the SETTINGS arrive.
	cc.wmu.Lock()
	wg := startRequests(cc, requests, violations)
	admitted := func() bool {
		cc.mu.Lock()
		defer cc.mu.Unlock()
		return cc.active == requests
	}
	if !pollUntil(admitted) {
		t.Fatal("requests not admitted")
	}
	close(settingsAt)
	applied := func() bool {
		cc.mu.Lock()
		defer cc.mu.Unlock()
		return cc.gotSettings
	}
	if !pollUntil(applied) {
		t.Fatal("SETTINGS never applied")
	}
	cc.wmu.Unlock()
	wg.Wait()
	if most := <-maxOpen; most != limit {
		t.Errorf("at most %d streams were open at once, want the limit %d", most, limit)
	}
	close(violations)
	for err := range violations {
		t.Error(err)
	}
}
