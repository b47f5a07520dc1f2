package interop_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/certs"
	"github.com/spdylab/spdylab/server"
	"github.com/spdylab/spdylab/spdy"
)

// SPDY/3 (no session flow control) against node-spdy in both directions,
// negotiated by ALPN: the protocol of the 2012-2013 studies' browsers.
func TestSPDY3WithNode(t *testing.T) {
	t.Run("our_client", func(t *testing.T) {
		t.Parallel()
		requireNode(t)
		dir := t.TempDir()
		cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
		if err := certs.WriteFiles(cert, key); err != nil {
			t.Fatal(err)
		}
		ns := startNodeServerArgs(t, "https", "--cert", cert, "--key", key, "--protocol", "spdy/3")
		raw, err := net.Dial("tcp", ns.Addr)
		if err != nil {
			t.Fatal(err)
		}
		tc := tls.Client(raw, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{spdy.ProtoSPDY3}})
		if err := tc.Handshake(); err != nil || tc.ConnectionState().NegotiatedProtocol != spdy.ProtoSPDY3 {
			t.Fatalf("handshake: %v, ALPN %q", err, tc.ConnectionState().NegotiatedProtocol)
		}
		log := newFrameLog()
		cc, err := spdy.NewClientConn(tc, &spdy.ClientConfig{Config: spdy.Config{Version: spdy.ProtoSPDY3, Trace: log.trace}})
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		const n = 3 << 20
		resp, body, err := fetch(ctx, cc, "GET", fmt.Sprintf("%s_spdylab/bytes?n=%d&seed=11", ns.URL, n), nil)
		if err != nil || resp.StatusCode != 200 || sha(body) != server.DeterministicSHA256(n, 11) {
			t.Fatalf("3 MiB over spdy/3: %v, %d bytes", err, len(body))
		}
		payload := server.DeterministicBytes(2<<20, 23)
		resp, body, err = fetch(ctx, cc, "POST", ns.URL+"_spdylab/sha256", payload)
		var ur server.UploadResult
		if err != nil || json.Unmarshal(body, &ur) != nil || ur.SHA256 != sha(payload) || ur.Protocol != "spdy/3" {
			t.Fatalf("2 MiB upload over spdy/3: %v, answer %q", err, body)
		}
		log.mu.Lock()
		defer log.mu.Unlock()
		for _, f := range append(log.sent, log.received...) {
			if w, ok := f.(*spdy.WindowUpdateFrame); ok && w.Stream == 0 {
				t.Errorf("session-level WINDOW_UPDATE on a spdy/3 session: %v", w)
			}
		}
	})
	t.Run("node_client", func(t *testing.T) {
		t.Parallel()
		requireNode(t)
		s := startOurServer(t, server.Config{Protocols: []string{spdy.ProtoSPDY3}})
		rep := runNodeClient(t, s.URL(), false, "--protocol", "spdy/3", "--checks", "get,upload,concurrent,slow")
		requireChecks(t, rep, "get", "upload", "concurrent", "slow")
	})
}
