package client

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestH1RoundTripKeepsConnectionAndCountsHeads(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			w.Write([]byte("part one "))
			w.(http.Flusher).Flush()
			w.Write([]byte("part two"))
			return
		}
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Seen", r.Method+":"+string(b))
		io.WriteString(w, "hello")
	}))
	defer srv.Close()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h := NewH1Conn(c)
	var sent, got []string
	h.Trace = func(s bool, line string) {
		if s {
			sent = append(sent, line)
		} else {
			got = append(got, line)
		}
	}
	for _, tc := range []struct{ method, path, body, want, seen string }{
		{"GET", "/chunked", "", "part one part two", ""},
		{"POST", "/x", "data", "hello", "POST:data"},
		{"GET", "/y", "", "hello", "GET:"},
	} {
		var body io.Reader
		if tc.body != "" {
			body = strings.NewReader(tc.body)
		}
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, body)
		resp, err := h.RoundTrip(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != tc.want || resp.Header.Get("X-Seen") != tc.seen {
			t.Errorf("%s %s: body %q, X-Seen %q", tc.method, tc.path, b, resp.Header.Get("X-Seen"))
		}
	}
	if len(sent) == 0 || sent[0] != "GET /chunked HTTP/1.1" || len(got) == 0 || got[0] != "HTTP/1.1 200 OK" {
		t.Errorf("trace: sent %q, received %q", sent, got)
	}
}

func TestReadResponseHeadCountsBytesAndSkipsInterim(t *testing.T) {
	raw := "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\nA: b\r\n\r\nabc"
	resp, err := readResponseHead(bufio.NewReader(strings.NewReader(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.HeadBytes != int64(len(raw)-3) || len(resp.Fields) != 2 || resp.Fields[1] != (Field{"A", "b"}) {
		t.Errorf("got %d, %d head bytes, fields %v", resp.StatusCode, resp.HeadBytes, resp.Fields)
	}
	for _, bad := range []string{"HTTP/1.1 2000 OK\r\n\r\n", "HTTP/9 200\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "HTTP/1.1 200 OK\r\n"} {
		if _, err := readResponseHead(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzH1Response parses arbitrary server bytes as a response and reads its
// body: an error or a response, never a panic.
func FuzzH1Response(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX: y\r\n\r\n"))
	f.Add([]byte("HTTP/1.0 204 No Content\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\n\r\nrest"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, b := net.Pipe()
		defer a.Close()
		go func() {
			b.Write(data)
			b.Close()
		}()
		h := NewH1Conn(a)
		resp, err := h.ReadResponse(http.MethodGet)
		if err != nil {
			return
		}
		io.Copy(io.Discard, resp.Body)
		h.Finish(resp)
		if resp.HeadBytes > int64(len(data)) || bytes.Count(data, []byte("\n")) == 0 {
			t.Fatalf("head of %d bytes from %d bytes of input", resp.HeadBytes, len(data))
		}
	})
}
