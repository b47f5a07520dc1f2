package client

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// rawScripted is scripted with the server's socket at hand.
func rawScripted(t *testing.T, cfg H2Config, script func(c net.Conn, fr *http2.Framer)) *H2Conn {
	t.Helper()
	return scriptedConn(t, cfg, false, script)
}

// dataHeader is a DATA frame's 9-byte header.
func dataHeader(length int, flags http2.Flags, stream uint32) []byte {
	h := make([]byte, 9)
	binary.BigEndian.PutUint32(h[0:4], uint32(length)<<8|uint32(http2.FrameData))
	h[4] = byte(flags)
	binary.BigEndian.PutUint32(h[5:9], stream)
	return h
}

// halfFrameServer answers the request with one 1000-byte DATA frame, of
// which it sends the first 400 bytes, then the rest once release is
// closed (sent is set just before).
func halfFrameServer(body []byte, release <-chan struct{}, sent *atomic.Bool) func(net.Conn, *http2.Framer) {
	return func(c net.Conn, fr *http2.Framer) {
		fr.WriteSettings()
		id := readHeaders(fr)
		writeResponseHeaders(fr, id)
		c.Write(append(dataHeader(len(body), http2.FlagDataEndStream, id), body[:400]...))
		<-release
		sent.Store(true)
		c.Write(body[400:])
	}
}

// releaser is a channel and its idempotent close.
func releaser() (<-chan struct{}, func()) {
	ch := make(chan struct{})
	var once sync.Once
	return ch, func() { once.Do(func() { close(ch) }) }
}

func getBody(t *testing.T, cc *H2Conn) io.ReadCloser {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "https://example.test/x", nil)
	resp, err := cc.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp.Body
}

// The first packets of a DATA frame reach the body before the rest of the
// frame has been sent; the whole frame, one trace event, and the stream's
// end follow.
func TestH2DataPayloadReachesBodyBeforeFrameEnds(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 100)
	release, releaseNow := releaser()
	var sent atomic.Bool
	var mu sync.Mutex
	var events []FrameEvent
	cc := rawScripted(t, H2Config{Trace: func(ev FrameEvent) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Type == http2.FrameData {
			events = append(events, ev)
		}
	}}, halfFrameServer(body, release, &sent))
	t.Cleanup(releaseNow) // before the connection's cleanup waits for the server
	b := getBody(t, cc)
	first := make(chan error, 1)
	buf := make([]byte, 400)
	go func() { _, err := io.ReadFull(b, buf); first <- err }()
	select {
	case err := <-first:
		if err != nil || !bytes.Equal(buf, body[:400]) {
			t.Fatalf("first 400 bytes: %v, equal %v", err, bytes.Equal(buf, body[:400]))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the frame's first 400 bytes did not reach the body while the server held the rest")
	}
	releaseNow()
	rest, err := io.ReadAll(b)
	if err != nil || !bytes.Equal(rest, body[400:]) {
		t.Fatalf("rest: %d bytes, %v", len(rest), err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 1 || events[0].Length != 1000 || !events[0].Flags.Has(http2.FlagDataEndStream) {
		t.Errorf("trace saw DATA %+v, want one frame of 1000 bytes with END_STREAM", events)
	}
}

// WholeDataFrames: nothing of the frame reaches the body before all of it
// was sent.
func TestH2WholeDataFramesWaitsForTheFrame(t *testing.T) {
	body := bytes.Repeat([]byte("abcdefghij"), 100)
	release, releaseNow := releaser()
	var sent atomic.Bool
	cc := rawScripted(t, H2Config{WholeDataFrames: true}, halfFrameServer(body, release, &sent))
	t.Cleanup(releaseNow)
	b := getBody(t, cc)
	go func() { time.Sleep(50 * time.Millisecond); releaseNow() }()
	buf := make([]byte, 1)
	if _, err := io.ReadFull(b, buf); err != nil {
		t.Fatal(err)
	}
	if !sent.Load() {
		t.Fatal("a byte of the frame reached the body before the whole frame was sent")
	}
	if rest, err := io.ReadAll(b); err != nil || !bytes.Equal(append(buf, rest...), body) {
		t.Fatalf("body: %d bytes, %v", len(rest)+1, err)
	}
}

// Frames the splitter leaves whole: PADDED DATA (padding is credited back,
// not read) and frames of other types between DATA pieces.
func TestH2SplitterPassesPaddedFrames(t *testing.T) {
	cc := rawScripted(t, H2Config{}, func(c net.Conn, fr *http2.Framer) {
		fr.WriteSettings()
		id := readHeaders(fr)
		writeResponseHeaders(fr, id)
		fr.WriteDataPadded(id, false, []byte("padded "), make([]byte, 100))
		fr.WritePing(false, [8]byte{1})
		fr.WriteData(id, true, []byte("plain"))
	})
	got, err := io.ReadAll(getBody(t, cc))
	if err != nil || string(got) != "padded plain" {
		t.Fatalf("body %q, %v", got, err)
	}
}

// The splitter's output parses into the same stream of frames, pieces
// aside, whatever the read sizes: fed one byte at a time, a DATA frame
// comes out as one-byte pieces whose payload joins up.
func TestDataSplitterPieces(t *testing.T) {
	var wire bytes.Buffer
	w := http2.NewFramer(&wire, nil)
	w.WriteData(3, true, []byte("hello"))
	w.WriteWindowUpdate(0, 7)
	fr := http2.NewFramer(nil, newDataSplitter(iotestOneByte{&wire}, 16384))
	var payload []byte
	var ended bool
	for range 5 {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		d, ok := f.(*http2.DataFrame)
		if !ok || d.StreamID != 3 || d.Length != 1 {
			t.Fatalf("got %v, want a 1-byte DATA piece on stream 3", f)
		}
		payload = append(payload, d.Data()...)
		ended = d.StreamEnded()
	}
	if string(payload) != "hello" || !ended {
		t.Fatalf("payload %q, ended %v", payload, ended)
	}
	if f, err := fr.ReadFrame(); err != nil || f.Header().Type != http2.FrameWindowUpdate {
		t.Fatalf("after the DATA: %v, %v", f, err)
	}
	if _, err := fr.ReadFrame(); err != io.EOF {
		t.Fatalf("at the end: %v, want EOF", err)
	}
}

// iotestOneByte returns one byte per Read, like a slow network.
type iotestOneByte struct{ r io.Reader }

func (o iotestOneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}
