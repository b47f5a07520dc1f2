package spdy

import (
	"testing"
)

// limitedPeer plays a server that limits streams to limit and sends its
// SETTINGS only after the client's first SYN_STREAM has arrived, as a
// server's SETTINGS do over TLS 1.3 and plain TCP. It answers the streams
// oldest first, each only once every SYN_STREAM the client has sent so far
// has been read: a SYN_STREAM beyond the limit is then seen before a slot
// frees, as a real server would see (and refuse) it.
func limitedPeer(t *testing.T, cc *ClientConn, p *rawPeer, limit, requests int) (maxOpen int) {
	t.Helper()
	sent := func() int { return int(cc.Stats().FramesSent["SYN_STREAM"]) }
	var open []uint32
	read := 0
	readSyn := func() {
		t.Helper()
		s := p.expectSyn()
		read++
		open = append(open, s.Stream)
		maxOpen = max(maxOpen, len(open))
		if len(open) > limit {
			t.Fatalf("stream %d opened with %d streams open: a server advertising %d would refuse it", s.Stream, len(open)-1, limit)
		}
	}
	readSyn()
	p.send(&SettingsFrame{Entries: []Setting{{ID: SettingMaxConcurrentStreams, Value: uint32(limit)}}})
	for answered := 0; answered < requests; {
		// Read whatever the client has sent before freeing a slot.
		eventually(t, "a SYN_STREAM sent, or the client at the limit or done", func() bool {
			return sent() > read || len(open) == limit || read == requests
		})
		if sent() > read {
			readSyn()
			continue
		}
		p.send(&SynReplyFrame{Stream: open[0], Flags: FlagFin, Headers: replyHeaders()})
		open = open[1:]
		answered++
	}
	return maxOpen
}

func TestAwaitPeerSettingsKeepsToTheAdvertisedLimit(t *testing.T) {
	const limit, requests = 2, 10
	cc, p := newRawServer(t, &ClientConfig{AwaitPeerSettings: true})
	errs := make([]chan error, requests)
	for i := range errs {
		errs[i] = startGet(cc, "/")
	}
	maxOpen := limitedPeer(t, cc, p, limit, requests)
	for i, errc := range errs {
		if err := <-errc; err != nil {
			t.Errorf("request %d: %v", i, err)
		}
	}
	if maxOpen != limit {
		t.Errorf("at most %d streams were open at once, want the limit %d", maxOpen, limit)
	}
	if n := cc.Stats().FramesReceived["RST_STREAM"]; n != 0 {
		t.Errorf("%d streams refused", n)
	}
}

// A server that sends no SETTINGS: the first frame it sends ends the wait
// (and the session assumes no limit, as section 2.6.4 says).
func TestAwaitPeerSettingsEndsOnAnyFirstFrame(t *testing.T) {
	cc, p := newRawServer(t, &ClientConfig{AwaitPeerSettings: true})
	first := startGet(cc, "/")
	s := p.expectSyn()
	second, third := startGet(cc, "/2"), startGet(cc, "/3")
	p.send(&SynReplyFrame{Stream: s.Stream, Headers: replyHeaders()})
	// Both held requests go out while the first is still open.
	s2, s3 := p.expectSyn(), p.expectSyn()
	p.send(&DataFrame{Stream: s.Stream, Flags: FlagFin},
		&SynReplyFrame{Stream: s2.Stream, Flags: FlagFin, Headers: replyHeaders()},
		&SynReplyFrame{Stream: s3.Stream, Flags: FlagFin, Headers: replyHeaders()})
	for i, errc := range []chan error{first, second, third} {
		if err := <-errc; err != nil {
			t.Errorf("request %d: %v", i, err)
		}
	}
}
