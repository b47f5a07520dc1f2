package spdy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
)

// io.Copy from a request body goes through bodyReader.WriteTo (no copy
// buffer of its own) and still reopens the windows as it consumes: a body
// several windows long arrives whole.
func TestBodyWriteTo(t *testing.T) {
	allVersions(t, func(t *testing.T, version string) {
		body := randomBytes(300<<10, 21)
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, ok := r.Body.(io.WriterTo); !ok {
				t.Errorf("request body %T is no io.WriterTo", r.Body)
			}
			sum := sha256.New()
			n, err := io.Copy(sum, r.Body)
			if err != nil || n != int64(len(body)) {
				t.Errorf("io.Copy: %d bytes, %v", n, err)
			}
			w.Write(sum.Sum(nil))
		})
		cfg := Config{Version: version}
		p := newPair(t, cfg, &ClientConfig{Config: cfg}, h)
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, "https://example.test/", bytes.NewReader(body))
		resp, err := p.cc.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := sha256.Sum256(body); !bytes.Equal(got, want[:]) {
			t.Fatalf("the handler hashed something else than the %d bytes sent", len(body))
		}
	})
}

// Server.AdmitStream refuses a stream with REFUSED_STREAM before any
// handler runs, and an admitted stream's release follows its handler.
func TestAdmitStream(t *testing.T) {
	var admitted, released atomic.Int32
	h, release := blockingHandler()
	c, sc := tcpPipe(t)
	srv := &Server{Handler: h, AdmitStream: func(net.Conn) (func(), bool) {
		if admitted.Load() == 1 {
			return nil, false
		}
		admitted.Add(1)
		return func() { released.Add(1) }, true
	}}
	done := make(chan error, 1)
	go func() { done <- srv.ServeConn(context.Background(), sc) }()
	p := &rawPeer{t: t, conn: c, fr: NewFramer(c, c, 0)}
	p.send(&SynStreamFrame{Stream: 1, Flags: FlagFin, Headers: getHeaders("/")},
		&SynStreamFrame{Stream: 3, Flags: FlagFin, Headers: getHeaders("/")})
	p.expectRst(3, RstRefusedStream)
	if released.Load() != 0 {
		t.Fatal("released before the handler returned")
	}
	close(release)
	p.expectBody(1)
	c.Close()
	<-done
	if admitted.Load() != 1 || released.Load() != 1 {
		t.Fatalf("admitted %d, released %d; want 1 and 1", admitted.Load(), released.Load())
	}
}
