package loader

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/probe"
)

// misbehave serves the site but lets bad handle one path.
func misbehave(st *site, path string, bad func(w http.ResponseWriter, r *http.Request)) func(string, *hostStats) http.Handler {
	return func(host string, hs *hostStats) http.Handler {
		files := fileHandler(st.dir)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == path {
				bad(w, r)
				return
			}
			files.ServeHTTP(w, r)
		})
	}
}

// victim is an image of the page (not the root, so the load gets going).
func victim(st *site) (path, url string, size int) {
	for i, r := range st.m.Resources {
		if r.Type == "image" {
			return r.Path, st.m.URL(i), r.Size
		}
	}
	panic("page has no image")
}

// wantFailure checks a failed load: the error names url and says why, the
// Result is marked failed and its partial HAR still validates.
func wantFailure(t *testing.T, res probe.Result, err error, url string, why ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("load succeeded, want an error naming %s", url)
	}
	if !res.Failed || res.Error != err.Error() {
		t.Errorf("Result.Failed %v, Result.Error %q; error %q", res.Failed, res.Error, err)
	}
	if !strings.Contains(err.Error(), url) {
		t.Errorf("error does not name %s: %v", url, err)
	}
	for _, w := range why {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not say %q: %v", w, err)
		}
	}
	if len(res.HAR) == 0 {
		t.Fatal("no partial HAR")
	}
	if verr := har.Validate(res.HAR); verr != nil {
		t.Errorf("partial HAR does not validate: %v", verr)
	}
	var h har.Document
	json.Unmarshal(res.HAR, &h)
	if len(h.Log.Entries) == 0 {
		t.Error("partial HAR has no entries")
	}
}

func TestStallTimesOutWithPartialHAR(t *testing.T) {
	st := newSite(t, "generic:n=15,mean=3k", 1)
	path, url, _ := victim(st)
	for _, proto := range []string{probe.ProtoHTTPS, probe.ProtoH2} {
		alpn := map[string]string{probe.ProtoHTTPS: "http/1.1", probe.ProtoH2: "h2"}[proto]
		target, _ := goServers(t, st, []string{alpn}, misbehave(st, path, func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // never answers
		}))
		res, err := Load(context.Background(), target, Options{Proto: proto, Timeout: 700 * time.Millisecond})
		t.Logf("%s: %v", proto, err)
		wantFailure(t, res, err, url, "timeout", "waiting for the response")
		var h har.Document
		json.Unmarshal(res.HAR, &h)
		completed := 0
		for _, e := range h.Log.Entries {
			if e.Error == "" && e.Response.Status == 200 {
				completed++
			}
		}
		if completed == 0 || completed >= len(st.m.Resources) {
			t.Errorf("%s: %d completed entries in the partial HAR, want some but not all", proto, completed)
		}
		if res.PLTms != 0 {
			t.Errorf("%s: a failed load reports PLT %v", proto, res.PLTms)
		}
	}
}

func TestResetNamesResource(t *testing.T) {
	st := newSite(t, "generic:n=15,mean=3k", 1)
	path, url, _ := victim(st)
	// The hijacked connection is a *tls.Conn; reset the TCP socket below it.
	target, _ := goServers(t, st, []string{"http/1.1"}, misbehave(st, path, func(w http.ResponseWriter, r *http.Request) {
		c, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		resetConn(c)
	}))
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoHTTPS, Timeout: 10 * time.Second})
	wantFailure(t, res, err, url)
}

// resetConn aborts a connection with a TCP RST (SO_LINGER 0).
func resetConn(c net.Conn) {
	if u, ok := c.(interface{ NetConn() net.Conn }); ok {
		c = u.NetConn()
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}

func TestShortBodyNamesResource(t *testing.T) {
	st := newSite(t, "generic:n=15,mean=3k", 1)
	path, url, size := victim(st)
	target, _ := goServers(t, st, []string{"http/1.1"}, misbehave(st, path, func(w http.ResponseWriter, r *http.Request) {
		c, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n", size)
		buf.Write(bytes.Repeat([]byte{'x'}, size/2))
		buf.Flush()
		c.Close()
	}))
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoHTTPS, Timeout: 10 * time.Second})
	wantFailure(t, res, err, url, fmt.Sprintf("%d of %d body bytes", size/2, size))
}

func TestWrongSizeNamesResource(t *testing.T) {
	st := newSite(t, "generic:n=15,mean=3k", 1)
	path, url, size := victim(st)
	for _, proto := range []string{probe.ProtoHTTPS, probe.ProtoH2} {
		alpn := map[string]string{probe.ProtoHTTPS: "http/1.1", probe.ProtoH2: "h2"}[proto]
		target, _ := goServers(t, st, []string{alpn}, misbehave(st, path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/jpeg")
			w.Write(bytes.Repeat([]byte{'x'}, size-10))
		}))
		res, err := Load(context.Background(), target, Options{Proto: proto, Timeout: 10 * time.Second})
		wantFailure(t, res, err, url, fmt.Sprintf("got %d body bytes, the manifest says %d", size-10, size))
	}
}

func TestH2StreamResetNamesResource(t *testing.T) {
	st := newSite(t, "generic:n=15,mean=3k", 1)
	path, url, _ := victim(st)
	target, _ := goServers(t, st, []string{"h2"}, misbehave(st, path, func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler) // RST_STREAM
	}))
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH2, Timeout: 10 * time.Second})
	wantFailure(t, res, err, url)
}

func TestNotFoundNamesResource(t *testing.T) {
	st := newSite(t, "generic:n=15,mean=3k", 1)
	path, url, _ := victim(st)
	target, _ := goServers(t, st, []string{"http/1.1"}, misbehave(st, path, http.NotFound))
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoHTTPS})
	wantFailure(t, res, err, url, "status 404")
}

func TestALPNMismatch(t *testing.T) {
	st := newSite(t, "generic:n=3,mean=2k", 1)
	target, _ := goServers(t, st, []string{"http/1.1"}, nil)
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH2})
	wantFailure(t, res, err, st.m.URL(0), "did not negotiate h2")
}

// TestUnlistedAndMissingReferences serves a root document in which one
// manifest reference was replaced by another URL of the same length: the
// unknown URL is fetched and reported, the resource the manifest expected
// is an error naming it.
func TestUnlistedAndMissingReferences(t *testing.T) {
	st := newSite(t, "generic:n=8,mean=2k", 1)
	content, err := st.m.Content(0)
	if err != nil {
		t.Fatal(err)
	}
	gone := 1
	ref := st.m.RefURL(gone)
	swapped := ref[:len(ref)-5] + "Z" + ref[len(ref)-4:]
	content = bytes.Replace(content, []byte(`"`+ref+`"`), []byte(`"`+swapped+`"`), 1)
	var unlistedHits atomic.Int32
	target, _ := goServers(t, st, []string{"http/1.1"}, func(host string, hs *hostStats) http.Handler {
		files := fileHandler(st.dir)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case st.m.Resources[0].Path:
				w.Header().Set("Content-Type", "text/html")
				w.Write(content)
			case swapped:
				unlistedHits.Add(1)
				w.Write([]byte("not in the manifest"))
			default:
				files.ServeHTTP(w, r)
			}
		})
	})
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoHTTPS})
	wantFailure(t, res, err, st.m.URL(gone), "do not")
	if n := unlistedHits.Load(); n != 1 {
		t.Errorf("the unlisted reference was fetched %d times, want once", n)
	}
	var h har.Document
	json.Unmarshal(res.HAR, &h)
	found := false
	for _, e := range h.Log.Entries {
		if e.Unlisted && strings.HasSuffix(e.Request.URL, swapped) {
			found = true
		}
	}
	if !found {
		t.Errorf("HAR does not report the unlisted reference %s", swapped)
	}
	if !strings.Contains(h.Log.Comment, "not in the manifest") {
		t.Errorf("HAR comment does not mention the unlisted reference: %q", h.Log.Comment)
	}
}

func TestCallerCancel(t *testing.T) {
	st := newSite(t, "generic:n=10,mean=2k", 1)
	path, _, _ := victim(st)
	ctx, cancel := context.WithCancel(context.Background())
	target, _ := goServers(t, st, []string{"http/1.1"}, misbehave(st, path, func(w http.ResponseWriter, r *http.Request) {
		cancel()
		<-r.Context().Done()
	}))
	res, err := Load(ctx, target, Options{Proto: probe.ProtoHTTPS, Timeout: time.Minute})
	if err == nil || !res.Failed || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("cancelled load: err %v, failed %v", err, res.Failed)
	}
}

func TestBadOptions(t *testing.T) {
	st := newSite(t, "generic:n=3,mean=2k", 2)
	good := Target{Manifest: st.m, BaseURLs: map[string]string{st.m.Hosts[0]: "https://127.0.0.1:1", st.m.Hosts[1]: "https://127.0.0.1:2"}}
	cases := []struct {
		name string
		t    Target
		o    Options
		want string
	}{
		{"no manifest", Target{}, Options{Proto: "https"}, "no manifest"},
		{"unknown proto", good, Options{Proto: "spdy/1"}, `unknown protocol "spdy/1"`},
		{"no proto", good, Options{}, "no protocol"},
		{"tls", good, Options{Proto: "https", TLSVersion: "0.9"}, `TLS version "0.9"`},
		{"missing host", Target{Manifest: st.m, BaseURLs: map[string]string{st.m.Hosts[0]: "https://127.0.0.1:1"}}, Options{Proto: "https"}, "no base URL for host " + st.m.Hosts[1]},
		{"http scheme", Target{Manifest: st.m, BaseURLs: map[string]string{st.m.Hosts[0]: "http://127.0.0.1:1", st.m.Hosts[1]: "https://127.0.0.1:2"}}, Options{Proto: "https"}, `needs TLS version "none"`},
		{"ftp scheme", Target{Manifest: st.m, BaseURLs: map[string]string{st.m.Hosts[0]: "ftp://127.0.0.1:1", st.m.Hosts[1]: "https://127.0.0.1:2"}}, Options{Proto: "https"}, "scheme must be https"},
		{"negative conns", good, Options{Proto: "https", MaxConnsPerHost: -1}, "MaxConnsPerHost -1"},
	}
	for _, c := range cases {
		res, err := Load(context.Background(), c.t, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
		if !res.Failed {
			t.Errorf("%s: Result not marked failed", c.name)
		}
	}
}

func TestConnectRefusedNamesHost(t *testing.T) {
	st := newSite(t, "generic:n=3,mean=2k", 1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	target := Target{Manifest: st.m, BaseURLs: map[string]string{st.m.Hosts[0]: "https://" + addr}}
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoHTTPS})
	wantFailure(t, res, err, st.m.URL(0), "connecting to "+st.m.Hosts[0])
}
