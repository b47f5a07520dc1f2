package client

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// fuzzConn serves fixed server bytes, released once the client has sent
// its request (so that the bytes can answer stream 1), and discards writes.
type fuzzConn struct {
	net.Conn // nil: only the methods below are used
	r        *bytes.Reader
	start    chan struct{}
	once     sync.Once
	closed   chan struct{}
	close    sync.Once
}

func (c *fuzzConn) release() { c.once.Do(func() { close(c.start) }) }

func (c *fuzzConn) Read(p []byte) (int, error) {
	select {
	case <-c.start:
	case <-c.closed:
		return 0, net.ErrClosed
	}
	return c.r.Read(p)
}

func (c *fuzzConn) Write(p []byte) (int, error) {
	select {
	case <-c.closed:
		return 0, net.ErrClosed
	default:
		return len(p), nil
	}
}

func (c *fuzzConn) Close() error                     { c.close.Do(func() { close(c.closed) }); return nil }
func (c *fuzzConn) SetWriteDeadline(time.Time) error { return nil }
func (c *fuzzConn) SetDeadline(time.Time) error      { return nil }
func (c *fuzzConn) SetReadDeadline(time.Time) error  { return nil }
func (c *fuzzConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *fuzzConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }

// serverBytes builds a seed: what a server sends for one request.
func serverBytes(write func(fr *http2.Framer)) []byte {
	var b bytes.Buffer
	write(http2.NewFramer(&b, nil))
	return b.Bytes()
}

// FuzzH2ServerBytes feeds arbitrary server bytes to a client connection
// with one request (and push enabled) in flight: it must end with an error
// or a response, never panic or hang, and Close must return.
func FuzzH2ServerBytes(f *testing.F) {
	f.Add(serverBytes(func(fr *http2.Framer) {
		fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 1})
		writeResponseHeaders(fr, 1)
		fr.WriteData(1, true, []byte("hello"))
	}))
	f.Add(serverBytes(func(fr *http2.Framer) {
		fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 30})
		fr.WritePushPromise(http2.PushPromiseParam{StreamID: 1, PromiseID: 2, EndHeaders: true,
			BlockFragment: []byte{0x82, 0x87, 0x84, 0x41, 0x01, 'a'}}) // GET https / authority "a"
		writeResponseHeaders(fr, 2)
		fr.WriteData(2, true, []byte("pushed"))
		writeResponseHeaders(fr, 1)
		fr.WriteWindowUpdate(0, 100)
		fr.WriteData(1, false, []byte("x"))
		fr.WriteRSTStream(1, http2.ErrCodeRefusedStream)
	}))
	f.Add(serverBytes(func(fr *http2.Framer) {
		fr.WriteSettings()
		fr.WriteGoAway(0, http2.ErrCodeProtocol, []byte("no"))
	}))
	f.Add(serverBytes(func(fr *http2.Framer) { // DATA the splitter cuts, passes whole, and refuses to cut
		fr.WriteSettings()
		writeResponseHeaders(fr, 1)
		fr.WriteDataPadded(1, false, []byte("padded"), make([]byte, 9))
		fr.WriteData(1, false, make([]byte, 3000))
		fr.WriteRawFrame(http2.FrameData, http2.FlagDataEndStream, 1, make([]byte, 16385))
	}))
	f.Add([]byte{0, 0, 2, 8, 0, 0, 0, 0, 0, 1, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &fuzzConn{r: bytes.NewReader(data), start: make(chan struct{}), closed: make(chan struct{})}
		cc, err := NewH2Conn(c, H2Config{StreamWindow: 16384, ConnWindow: 65535, OnPush: func(*PushPromise) bool { return true }})
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteHeaders: c.release})
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://a/", nil)
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer c.release()
			resp, err := cc.RoundTrip(req)
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		<-done
		for _, u := range cc.PushedURLs() {
			if resp, ok := cc.Pushed(u); ok {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		cc.Close()
	})
}
