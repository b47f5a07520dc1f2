package spdy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// sendWindowed sends body on stream id as a peer that keeps SPDY/3 stream
// windows on spdy/2 (node-spdy): never more than window bytes beyond what
// the other side's WINDOW_UPDATEs returned. It reads frames only while
// blocked, so a side that never reopens the window stalls it (the read's
// hang guard then fails the test). It returns the WINDOW_UPDATEs read.
func (p *rawPeer) sendWindowed(id uint32, body []byte, window int64) int {
	p.t.Helper()
	updates := 0
	for len(body) > 0 {
		for window <= 0 {
			p.conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // hang guard only
			f, err := p.fr.ReadFrame()
			if err != nil {
				p.t.Fatalf("waiting for a WINDOW_UPDATE for stream %d (%d bytes left to send): %v", id, len(body), err)
			}
			switch f := f.(type) {
			case *WindowUpdateFrame:
				if f.Stream == id {
					window += int64(f.Delta)
					updates++
				}
			case *SettingsFrame:
			default:
				p.t.Fatalf("waiting for a WINDOW_UPDATE for stream %d, got %v", id, f)
			}
		}
		n := min(int64(len(body)), window, DefaultMaxFrameSize)
		var flags uint8
		if int(n) == len(body) {
			flags = FlagFin
		}
		p.send(&DataFrame{Stream: id, Flags: flags, Data: body[:n]})
		body, window = body[n:], window-n
	}
	return updates
}

// A window-keeping peer that announces its window (node-spdy's SETTINGS)
// gets WINDOW_UPDATEs from our client as it reads, so a body larger than
// 64 KiB arrives; with SPDY2WindowsOff the same body stalls.
func TestSPDY2DetectsWindowsFromSettings(t *testing.T) {
	body := randomBytes(300<<10, 11)
	cc, p := newRawServer(t, &ClientConfig{Config: Config{Version: ProtoSPDY2}})
	p.fr = NewFramerVersion(Version2, p.conn, p.conn, 0)
	errc := make(chan error, 1)
	got := make(chan []byte, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, "https://example.test/big", nil)
		resp, err := cc.RoundTrip(req)
		if err != nil {
			errc <- err
			return
		}
		b, err := readSlowly(resp.Body)
		resp.Body.Close()
		got <- b
		errc <- err
	}()
	s := p.expectSyn()
	p.send(&SettingsFrame{Entries: []Setting{{ID: SettingInitialWindowSize, Value: 1 << 20, Flags: FlagSettingPersist}}},
		&SynReplyFrame{Stream: s.Stream, Headers: replyHeaders()})
	updates := p.sendWindowed(s.Stream, body, DefaultInitialWindowSize)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if b := <-got; !bytes.Equal(b, body) {
		t.Fatalf("got %d bytes, want the %d sent", len(b), len(body))
	}
	// 300 KiB through a 64 KiB window: at least 4 reopenings.
	if updates < 4 {
		t.Fatalf("the peer read %d WINDOW_UPDATEs, want >= 4", updates)
	}
}

// A window-keeping client (node-spdy's upload) gets WINDOW_UPDATEs from our
// server as the handler reads the body. With SPDY2WindowsOff the server
// sends none, whatever the client announced.
func TestSPDY2ServerAnnouncesWindowsForUploads(t *testing.T) {
	body := randomBytes(200<<10, 12)
	echoLength := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		if err != nil || n != int64(len(body)) {
			http.Error(w, "short body", http.StatusBadRequest)
		}
	})
	post := func(p *rawPeer) {
		h := getHeaders("/upload")
		h[":method"] = []string{"POST"}
		p.send(&SettingsFrame{Entries: []Setting{{ID: SettingInitialWindowSize, Value: DefaultInitialWindowSize}}},
			&SynStreamFrame{Stream: 1, Headers: h})
	}
	t.Run("auto", func(t *testing.T) {
		p := newRawClientV2(t, echoLength)
		post(p)
		if updates := p.sendWindowed(1, body, DefaultInitialWindowSize); updates < 3 {
			t.Fatalf("%d WINDOW_UPDATEs for a 200 KiB upload through a 64 KiB window, want >= 3", updates)
		}
		if r, ok := p.next().(*SynReplyFrame); !ok || !strings.HasPrefix(r.Headers.Get(":status"), "200") {
			t.Fatalf("got %v, want SYN_REPLY 200", r)
		}
	})
	t.Run("off", func(t *testing.T) {
		p := newRawClient(t, Config{Version: ProtoSPDY2, SPDY2StreamWindows: SPDY2WindowsOff}, echoLength)
		p.fr = NewFramerVersion(Version2, p.conn, p.conn, 0)
		post(p)
		p.sendWindowed(1, body, int64(len(body))) // as a draft-2 client: all at once
		for {
			p.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			f, err := p.fr.ReadFrame()
			if err != nil {
				t.Fatal(err)
			}
			switch f := f.(type) {
			case *WindowUpdateFrame:
				t.Fatalf("SPDY2WindowsOff sent %v", f)
			case *SynReplyFrame:
				return // the handler read the whole body: any WINDOW_UPDATE was queued before
			}
		}
	})
}

// A stream WINDOW_UPDATE switches our sends to the peer's windows: the
// stream open at that moment stays unlimited (and ignores even an
// overflowing WINDOW_UPDATE, as the draft-2 conformance case sends), a
// stream opened afterwards stops at the window the peer's SETTINGS gave.
func TestSPDY2RespectsPeerWindowsAfterWindowUpdate(t *testing.T) {
	const window = 20000
	body := randomBytes(100<<10, 13)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/wait" {
			<-r.Context().Done()
			return
		}
		w.Write(body)
	})
	p := newRawClientV2(t, h)
	p.send(&SettingsFrame{Entries: []Setting{{ID: SettingInitialWindowSize, Value: window}}},
		&SynStreamFrame{Stream: 1, Headers: getHeaders("/wait")},
		&WindowUpdateFrame{Stream: 1, Delta: maxWindow}, &WindowUpdateFrame{Stream: 1, Delta: maxWindow},
		&SynStreamFrame{Stream: 3, Flags: FlagFin, Headers: getHeaders("/")})
	// PING rounds until the window has arrived, then one more: the
	// handler has long written all 100 KiB, so anything beyond the window
	// would have come by then.
	received, extraRound := 0, false
	for ping := uint32(1); ; ping += 2 {
		p.send(&PingFrame{ID: ping})
	round:
		for {
			switch f := p.next().(type) {
			case *DataFrame:
				if f.Stream != 3 {
					t.Fatalf("DATA on stream %d", f.Stream)
				}
				received += len(f.Data)
			case *PingFrame:
				break round
			case *RstStreamFrame, *GoAwayFrame:
				t.Fatalf("server answered %v (the WINDOW_UPDATEs for stream 1 must be ignored)", f)
			}
		}
		if received >= window {
			if extraRound {
				break
			}
			extraRound = true
		}
	}
	if received != window {
		t.Fatalf("stream 3 sent %d bytes before its window was reopened, want the peer's window %d", received, window)
	}
	p.send(&WindowUpdateFrame{Stream: 3, Delta: uint32(len(body) - window)})
	for received < len(body) {
		if d, ok := p.next().(*DataFrame); ok {
			received += len(d.Data)
		}
	}
}

// Between two spdylab peers on spdy/2 nothing is detected: neither sends a
// window setting or a WINDOW_UPDATE, so auto stays the draft.
func TestSPDY2AutoBetweenDraftPeers(t *testing.T) {
	body := randomBytes(400<<10, 14)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	cfg := Config{Version: ProtoSPDY2}
	p := newPair(t, cfg, &ClientConfig{Config: cfg}, h)
	resp, err := p.get(context.Background(), "/")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("body: %d bytes, %v", len(got), err)
	}
	if st := p.cc.Stats(); st.FramesSent["WINDOW_UPDATE"] != 0 || st.FramesReceived["WINDOW_UPDATE"] != 0 {
		t.Fatalf("WINDOW_UPDATEs between draft-2 peers: sent %d, received %d", st.FramesSent["WINDOW_UPDATE"], st.FramesReceived["WINDOW_UPDATE"])
	}
}

func TestSPDY2WindowsNames(t *testing.T) {
	for _, w := range []SPDY2Windows{SPDY2WindowsAuto, SPDY2WindowsOn, SPDY2WindowsOff} {
		var back SPDY2Windows
		text, _ := w.MarshalText()
		if err := back.UnmarshalText(text); err != nil || back != w {
			t.Errorf("%v: round trip gave %v, %v", w, back, err)
		}
	}
	if _, err := ParseSPDY2Windows("yes"); err == nil {
		t.Error(`ParseSPDY2Windows("yes") succeeded`)
	}
	if err := (&Config{SPDY2StreamWindows: 7}).validate(); err == nil {
		t.Error("Config.SPDY2StreamWindows 7 accepted")
	}
}
