package spdy

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// pathHandler answers every request with its path and request body length.
var pathHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	n, _ := io.Copy(io.Discard, r.Body)
	fmt.Fprintf(w, "%s %d", r.URL.Path, n)
})

// expectBody reads the reply of stream id and returns its body.
func (p *rawPeer) expectBody(id uint32) string {
	p.t.Helper()
	var body []byte
	for {
		switch f := p.next().(type) {
		case *SynReplyFrame:
			if f.Stream != id {
				p.t.Fatalf("reply for stream %d, want %d", f.Stream, id)
			}
		case *DataFrame:
			if f.Stream == id {
				body = append(body, f.Data...)
				if f.Flags&FlagFin != 0 {
					return string(body)
				}
			}
		case *GoAwayFrame, *RstStreamFrame:
			p.t.Fatalf("got %v while waiting for stream %d's body", f, id)
		}
	}
}

// heapAfterGC is the live heap, for assertions that an attack left no
// memory behind (bounds are generous; what matters is not O(attack)).
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func requestBlock(path string) []byte {
	return rawBlock(":host", "example.test", ":method", "GET", ":path", path, ":scheme", "https", ":version", "HTTP/1.1")
}

func TestHeaderBlockMustEndWithItsFrame(t *testing.T) {
	both(t, func(t *testing.T, version string) {
		t.Run("second block smuggled after the first", func(t *testing.T) {
			p := newRawClient(t, Config{Version: version}, pathHandler)
			c := newRawCompressor()
			first := c.block(requestBlock("/1k.bin"))
			smuggled := c.block(requestBlock("/index.html"))
			p.sendRaw(synStreamWire(t, 1, 0, 0, FlagFin, append(first, smuggled...)))
			p.expectRst(1, RstProtocolError)
			// The innocent next request gets its own path, not the smuggled one.
			p.sendRaw(synStreamWire(t, 3, 0, 0, FlagFin, c.block(requestBlock("/1k.bin"))))
			if got := p.expectBody(3); got != "/1k.bin 0" {
				t.Fatalf("stream 3 answered %q", got)
			}
		})
		t.Run("junk after the block", func(t *testing.T) {
			p := newRawClient(t, Config{Version: version}, pathHandler)
			c := newRawCompressor()
			block := append(c.block(requestBlock("/")), 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04, 0x05)
			p.sendRaw(synStreamWire(t, 1, 0, 0, FlagFin, block))
			// Undecodable compressed bytes lose the shared context: 2.4.1.
			p.expectRst(1, RstProtocolError)
			p.expectGoAway(1, GoAwayProtocolError)
		})
	})
}

func TestHeaderBytesPerStreamAreBounded(t *testing.T) {
	h, release := blockingHandler()
	defer close(release)
	p := newRawClient(t, Config{}, h)
	p.send(&SynStreamFrame{Stream: 1, Headers: getHeaders("/upload")})
	before := heapAfterGC()
	value := strings.Repeat("v", 16<<10)
	const frames = 2000 // 32 MiB of headers when nothing bounds them
	for i := 0; i < frames; i++ {
		p.send(&HeadersFrame{Stream: 1, Headers: Header{fmt.Sprintf("x-%d", i): {value}}})
	}
	p.expectRst(1, RstFrameTooLarge)
	p.expectAlive(1)
	if grew := int64(heapAfterGC()) - int64(before); grew > 8<<20 {
		t.Fatalf("heap grew %d bytes after %d HEADERS frames", grew, frames)
	}
	p.send(&SynStreamFrame{Stream: 3, Flags: FlagFin, Headers: getHeaders("/after")})
	release <- struct{}{}
	if got := p.expectBody(3); got != "ok" {
		t.Fatalf("request after the attack: %q", got)
	}
}

// compressData is a peer's per-stream DATA compressor (2.2.2).
type compressData struct {
	buf bytes.Buffer
	zw  *zlib.Writer
}

func (c *compressData) frame(p []byte) []byte {
	if c.zw == nil {
		c.zw = zlib.NewWriter(&c.buf)
	}
	c.buf.Reset()
	c.zw.Write(p)
	c.zw.Flush()
	return append([]byte(nil), c.buf.Bytes()...)
}

func TestCompressedDataIsInflated(t *testing.T) {
	both(t, func(t *testing.T, version string) {
		p := newRawClient(t, Config{Version: version}, pathHandler)
		var c compressData
		body := bytes.Repeat([]byte("spdy compressed body "), 10000) // 210000 bytes
		p.send(&SynStreamFrame{Stream: 1, Headers: getHeaders("/upload")})
		for off := 0; off < len(body); off += 50000 {
			end := min(off+50000, len(body))
			var flags uint8 = FlagDataCompress
			if end == len(body) {
				flags |= FlagFin
			}
			p.send(&DataFrame{Stream: 1, Flags: flags, Data: c.frame(body[off:end])})
		}
		if got, want := p.expectBody(1), fmt.Sprintf("/upload %d", len(body)); got != want {
			t.Fatalf("handler saw %q, want %q", got, want)
		}
	})
}

func TestCompressedDataBombIsBounded(t *testing.T) {
	// The upload's handler does not read until the test ends, so the
	// inflated bytes stay buffered and the bound, not the handler's pace,
	// decides (a handler draining each MiB as it came let every frame fit).
	release := make(chan struct{})
	defer close(release)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/upload" {
			<-release
		}
		pathHandler.ServeHTTP(w, r)
	})
	p := newRawClient(t, Config{}, h)
	var c compressData
	p.send(&SynStreamFrame{Stream: 1, Headers: getHeaders("/upload")})
	before := heapAfterGC()
	zeros := make([]byte, 1<<20)
	for i := 0; i < 64; i++ { // 64 MiB inflated from about 64 KiB on the wire
		p.send(&DataFrame{Stream: 1, Flags: FlagDataCompress, Data: c.frame(zeros)})
	}
	p.expectRst(1, RstFrameTooLarge)
	if grew := int64(heapAfterGC()) - int64(before); grew > 16<<20 {
		t.Fatalf("heap grew %d bytes under a 64 MiB decompression bomb", grew)
	}
	p.send(&SynStreamFrame{Stream: 3, Flags: FlagFin, Headers: getHeaders("/after")})
	if got := p.expectBody(3); got != "/after 0" {
		t.Fatalf("request after the bomb: %q", got)
	}
}

func TestGoAwayBeforeClosing(t *testing.T) {
	both(t, func(t *testing.T, version string) {
		t.Run("peer half-closes", func(t *testing.T) {
			p := newRawClient(t, Config{Version: version}, pathHandler)
			p.send(&SynStreamFrame{Stream: 1, Flags: FlagFin, Headers: getHeaders("/")})
			p.expectBody(1)
			p.conn.(*net.TCPConn).CloseWrite()
			p.expectGoAway(1, GoAwayOK) // 2.1: GOAWAY before the close
		})
		t.Run("peer stops mid-frame", func(t *testing.T) {
			p := newRawClient(t, Config{Version: version}, pathHandler)
			p.sendRaw([]byte{0x80, 3, 0, 6, 0, 0, 0, 4, 0, 0}) // half a PING
			p.conn.(*net.TCPConn).CloseWrite()
			p.expectGoAway(0, GoAwayProtocolError)
		})
		t.Run("peer stalls mid-frame", func(t *testing.T) {
			p := newRawClient(t, Config{Version: version, FrameReadTimeout: 100 * time.Millisecond}, pathHandler)
			p.sendRaw([]byte{0x80, 3, 0, 6, 0, 0, 0, 4, 0, 0}) // half a PING, then nothing
			p.expectGoAway(0, GoAwayProtocolError)
		})
	})
}

func TestRstStatusZeroResetsOnlyItsStream(t *testing.T) {
	h, release := blockingHandler()
	defer close(release)
	p := newRawClient(t, Config{}, h)
	p.send(&SynStreamFrame{Stream: 1, Headers: getHeaders("/")})
	p.sendRaw([]byte{0x80, 3, 0, 3, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0})
	p.expectAlive(1)
}

// Each flood ends in GOAWAY PROTOCOL_ERROR, and a new session is served.
func TestFloodsEndInGoAway(t *testing.T) {
	h, release := blockingHandler()
	defer close(release)
	floods := []struct {
		name   string
		cfg    Config
		frames func(i int) []Frame
	}{
		{"rapid reset", Config{}, func(i int) []Frame {
			id := uint32(2*i + 1)
			return []Frame{&SynStreamFrame{Stream: id, Headers: getHeaders("/")}, &RstStreamFrame{Stream: id, Status: RstCancel}}
		}},
		{"empty DATA", Config{}, func(i int) []Frame {
			if i == 0 {
				return []Frame{&SynStreamFrame{Stream: 1, Headers: getHeaders("/")}}
			}
			return []Frame{&DataFrame{Stream: 1}}
		}},
		{"SETTINGS", Config{}, func(i int) []Frame {
			return []Frame{&SettingsFrame{Entries: []Setting{{ID: SettingRoundTripTime, Value: uint32(i)}}}}
		}},
		{"refused streams", Config{MaxConcurrentStreams: 1}, func(i int) []Frame {
			return []Frame{&SynStreamFrame{Stream: uint32(2*i + 1), Headers: getHeaders("/")}}
		}},
	}
	for _, fl := range floods {
		t.Run(fl.name, func(t *testing.T) {
			p := newRawClient(t, fl.cfg, h)
			peak := watchHeap(t)
			flooded := make(chan struct{})
			go func() { // write while the test reads, so neither side blocks
				defer close(flooded)
				for i := 0; i < 5000; i++ {
					for _, f := range fl.frames(i) {
						if p.fr.WriteFrame(f) != nil {
							return
						}
					}
					if p.fr.Flush() != nil {
						return // the server closed the connection
					}
				}
			}()
			p.expectGoAwayStatus(GoAwayProtocolError)
			p.conn.Close()
			<-flooded
			if grew := peak(); grew > 32<<20 {
				t.Fatalf("heap grew %d bytes during the flood", grew)
			}
			q := newRawClient(t, fl.cfg, pathHandler)
			q.send(&SynStreamFrame{Stream: 1, Flags: FlagFin, Headers: getHeaders("/after")})
			if got := q.expectBody(1); got != "/after 0" {
				t.Fatalf("request after the flood: %q", got)
			}
		})
	}
}

func (p *rawPeer) expectGoAwayStatus(status GoAwayStatus) {
	p.t.Helper()
	for {
		if g, ok := p.next().(*GoAwayFrame); ok {
			if g.Status != status {
				p.t.Fatalf("got %v, want status %s", g, status)
			}
			return
		}
	}
}

// A peer that floods PINGs and never reads the echoes makes the server
// queue control frames; the queue is capped and the session ends.
func TestControlQueueBoundedWhenPeerDoesNotRead(t *testing.T) {
	p := newRawClient(t, Config{MaxQueuedControlFrames: 1000}, pathHandler)
	before := heapAfterGC()
	ping := make([]byte, 0, 12*4096)
	for i := 0; i < 4096; i++ {
		ping = append(ping, 0x80, 3, 0, 6, 0, 0, 0, 4, 0, 0, byte(i>>8), byte(2*i+1))
	}
	var err error
	for i := 0; i < 1000 && err == nil; i++ { // up to 4M PINGs, 48 MiB of echoes
		p.conn.SetWriteDeadline(time.Now().Add(20 * time.Second))
		_, err = p.conn.Write(ping)
	}
	if err == nil {
		t.Fatal("the server kept reading 4M PINGs while its echoes were not read")
	}
	if grew := int64(heapAfterGC()) - int64(before); grew > 16<<20 {
		t.Fatalf("heap grew %d bytes under a PING flood", grew)
	}
	q := newRawClient(t, Config{}, pathHandler)
	q.send(&SynStreamFrame{Stream: 1, Flags: FlagFin, Headers: getHeaders("/after")})
	if got := q.expectBody(1); got != "/after 0" {
		t.Fatalf("request after the flood: %q", got)
	}
}

// watchHeap samples the heap in use until the returned function is called,
// which reports the peak growth over the start.
func watchHeap(t *testing.T) func() int64 {
	runtime.GC()
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	base, peak := int64(m0.HeapInuse), int64(m0.HeapInuse)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, int64(m.HeapInuse))
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	var once sync.Once
	return func() int64 {
		once.Do(func() { close(stop); <-done })
		return peak - base
	}
}
