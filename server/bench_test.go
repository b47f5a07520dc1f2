package server

import (
	"fmt"
	"io"
	"net/http"
	"testing"
)

// BenchmarkSmallResponses measures the server's cost per request for a
// 100-byte lab response, per protocol, with 64 requests in flight over one
// connection (HTTP/1.1: one request at a time on its connection, as the
// protocol allows). Client and server share the process, so ns/op is the
// cost of both sides; compare protocols by ratio.
func BenchmarkSmallResponses(b *testing.B) {
	for _, proto := range DefaultProtocols {
		b.Run(proto, func(b *testing.B) {
			benchProtocol(b, proto, "_spdylab/bytes?n=100&seed=1", 64)
		})
	}
}

// BenchmarkLargeResponses measures throughput of 1 MiB responses, 4 at a
// time over one connection.
func BenchmarkLargeResponses(b *testing.B) {
	for _, proto := range DefaultProtocols {
		b.Run(proto, func(b *testing.B) {
			b.SetBytes(1 << 20)
			benchProtocol(b, proto, fmt.Sprintf("_spdylab/bytes?n=%d&seed=2", 1<<20), 4)
		})
	}
}

func benchProtocol(b *testing.B, proto, path string, parallel int) {
	s := startServer(b, Config{})
	c := dial(b, s, proto, nil)
	if proto == ProtoHTTP11 {
		parallel = 1
	}
	benchRoundTrips(b, c.rt, s.URL()+path, parallel)
}

// benchRoundTrips sends b.N GETs of url through rt, parallel at a time.
func benchRoundTrips(b *testing.B, rt func(*http.Request) (*http.Response, error), url string, parallel int) {
	b.ReportAllocs()
	b.ResetTimer()
	sem := make(chan struct{}, parallel)
	errs := make(chan error, 1)
	for i := 0; i < b.N; i++ {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			req, _ := http.NewRequest("GET", url, nil)
			resp, err := rt(req)
			if err == nil {
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			if err != nil {
				select {
				case errs <- err:
				default:
				}
			}
		}()
	}
	for i := 0; i < parallel; i++ {
		sem <- struct{}{}
	}
	b.StopTimer()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
}
