package spdy

import (
	"io"
	"net"
	"net/http"
	"testing"
)

// BenchmarkHTTP1Download is the side-by-side reference for
// BenchmarkSessionDownload: the same 8 MiB body over loopback TCP with
// net/http's HTTP/1.1 client and server.
func BenchmarkHTTP1Download(b *testing.B) {
	body := make([]byte, 8<<20)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) })}
	go srv.Serve(ln)
	defer srv.Close()
	tr := &http.Transport{MaxConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	url := "http://" + ln.Addr().String() + "/"
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
