package loader

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/probe"
)

// checkAgainstManifest asserts what every successful load must satisfy: a
// valid HAR, every manifest resource fetched exactly once with its size,
// timings non-negative and in order, and metrics that agree with the HAR.
func checkAgainstManifest(t *testing.T, st *site, res probe.Result) har.Document {
	t.Helper()
	if res.Failed {
		t.Fatalf("load failed: %s", res.Error)
	}
	if err := har.Validate(res.HAR); err != nil {
		t.Fatalf("HAR does not validate: %v", err)
	}
	var h har.Document
	if err := json.Unmarshal(res.HAR, &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Log.Pages) != 1 {
		t.Fatalf("HAR has %d pages, want 1", len(h.Log.Pages))
	}
	pageStart, _ := time.Parse(time.RFC3339Nano, h.Log.Pages[0].StartedDateTime)
	seen := map[int]int{}
	var last time.Time
	for i, e := range h.Log.Entries {
		if e.ResourceID == nil {
			t.Errorf("entry %d (%s) is not a manifest resource", i, e.Request.URL)
			continue
		}
		id := *e.ResourceID
		seen[id]++
		r := st.m.Resources[id]
		if e.Request.URL != st.m.URL(id) {
			t.Errorf("entry %d: url %s, manifest resource %d is %s", i, e.Request.URL, id, st.m.URL(id))
		}
		if e.Response.Status != 200 || e.Response.Content.Size != int64(r.Size) {
			t.Errorf("%s: status %d, %d bytes; manifest says %d bytes", e.Request.URL, e.Response.Status, e.Response.Content.Size, r.Size)
		}
		tm := e.Timings
		for name, v := range map[string]float64{"send": tm.Send, "wait": tm.Wait, "receive": tm.Receive} {
			if v < 0 {
				t.Errorf("%s: %s is %v", e.Request.URL, name, v)
			}
		}
		if tm.SSL > tm.Connect {
			t.Errorf("%s: ssl %v > connect %v", e.Request.URL, tm.SSL, tm.Connect)
		}
		started, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
		if err != nil {
			t.Fatal(err)
		}
		if started.Before(pageStart.Truncate(time.Millisecond)) {
			t.Errorf("%s starts before the page", e.Request.URL)
		}
		if !last.IsZero() && started.Before(last) {
			t.Errorf("entries are not in start order at %d", i)
		}
		last = started
		if e.Connection == "" {
			t.Errorf("%s has no connection id", e.Request.URL)
		}
		if want := wantPriority(st.m, id, res.Condition.Priority); e.Priority == nil || e.Priority.Level != int(want) {
			t.Errorf("%s (%s): priority %v, want %d", e.Request.URL, r.Type, e.Priority, want)
		}
	}
	for id := range st.m.Resources {
		if seen[id] != 1 {
			t.Errorf("resource %d (%s) fetched %d times, want once", id, st.m.URL(id), seen[id])
		}
	}
	if res.Resources != len(st.m.Resources) {
		t.Errorf("Result.Resources = %d, want %d", res.Resources, len(st.m.Resources))
	}
	if res.PLTms <= 0 || res.ToWms <= 0 || res.ToWms > res.PLTms {
		t.Errorf("PLT %v ms, ToW %v ms: want 0 < ToW <= PLT", res.PLTms, res.ToWms)
	}
	pt := h.Log.Pages[0].PageTimings
	if pt.OnContentLoad <= 0 || pt.OnContentLoad > pt.OnLoad || pt.OnLoad > res.PLTms+0.001 {
		t.Errorf("onContentLoad %v, onLoad %v, PLT %v: want 0 < DCL <= onLoad <= PLT", pt.OnContentLoad, pt.OnLoad, res.PLTms)
	}
	if res.BytesWireIn <= st.m.TotalBytes() || res.BytesWireOut <= 0 {
		t.Errorf("wire bytes in %d (page is %d bytes), out %d", res.BytesWireIn, st.m.TotalBytes(), res.BytesWireOut)
	}
	if res.Connections < len(st.m.Hosts) {
		t.Errorf("%d connections for %d hosts", res.Connections, len(st.m.Hosts))
	}
	if res.Condition.Proto == probe.ProtoH3 {
		return h // no TCP, and QPACK's header bytes are not visible (h3_test.go checks the rest)
	}
	if res.HeaderBytesRaw <= 0 || res.HeaderBytesCompressed <= 0 {
		t.Errorf("header bytes raw %d, compressed %d", res.HeaderBytesRaw, res.HeaderBytesCompressed)
	}
	if res.Condition.Proto == probe.ProtoSPDY31SCTP {
		return h // no TCP (sctp_test.go checks the SCTP counters)
	}
	if len(res.TCP) != res.Connections {
		t.Errorf("TCP_INFO for %d of %d connections", len(res.TCP), res.Connections)
	}
	var received uint64
	for _, ti := range res.TCP {
		if ti.SegsOut == 0 || ti.Host == "" {
			t.Errorf("connection %d TCP_INFO looks empty: %+v", ti.ConnID, ti)
		}
		received += ti.BytesRecv
	}
	if received < uint64(st.m.TotalBytes()) {
		// The kernel may hold bytes the loader never read (a handshake
		// still in flight on a spare connection), so only a lower bound.
		t.Errorf("TCP_INFO says %d bytes received; the page is %d bytes, the wire counter says %d", received, st.m.TotalBytes(), res.BytesWireIn)
	}
	if res.Phases.Receive <= 0 || res.Phases.Connect <= 0 {
		t.Errorf("phase sums look wrong: %+v", res.Phases)
	}
	return h
}

// connsPerHost counts the distinct HAR connection ids each host used.
func connsPerHost(h har.Document) map[string]int {
	ids := map[string]map[string]bool{}
	for _, e := range h.Log.Entries {
		host := strings.SplitN(strings.TrimPrefix(e.Request.URL, "https://"), "/", 2)[0]
		if ids[host] == nil {
			ids[host] = map[string]bool{}
		}
		ids[host][e.Connection] = true
	}
	out := map[string]int{}
	for h, s := range ids {
		out[h] = len(s)
	}
	return out
}

func TestLoadHTTPSGoServer(t *testing.T) {
	st := newSite(t, "generic:n=40,mean=6k,depth=2", 2)
	target, stats := goServers(t, st, []string{"http/1.1"}, nil)
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoHTTPS, TLSVersion: "1.2", Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h := checkAgainstManifest(t, st, res)
	if res.HeaderBytesRaw != res.HeaderBytesCompressed {
		t.Errorf("HTTP/1.1 header bytes raw %d != compressed %d", res.HeaderBytesRaw, res.HeaderBytesCompressed)
	}
	total := 0
	for host, hs := range stats {
		if hs.maxOpen > DefaultMaxConnsPerHost || hs.conns > DefaultMaxConnsPerHost {
			t.Errorf("%s: server saw %d connections (%d at once), the limit is %d", host, hs.conns, hs.maxOpen, DefaultMaxConnsPerHost)
		}
		total += hs.conns
		for p, n := range hs.requests {
			if n != 1 {
				t.Errorf("%s%s requested %d times", host, p, n)
			}
		}
	}
	if total != res.Connections {
		t.Errorf("servers accepted %d connections, Result says %d", total, res.Connections)
	}
	for host, n := range connsPerHost(h) {
		if n > DefaultMaxConnsPerHost {
			t.Errorf("HAR shows %d connections to %s", n, host)
		}
	}
	for _, e := range h.Log.Entries {
		if e.Request.HeadersSize <= 0 || e.Response.HeadersSize <= 0 {
			t.Errorf("%s: header sizes %d/%d", e.Request.URL, e.Request.HeadersSize, e.Response.HeadersSize)
		}
	}
}

func TestLoadHTTPSConnectionLimit(t *testing.T) {
	st := newSite(t, "generic:n=25,mean=3k", 1)
	target, stats := goServers(t, st, []string{"http/1.1"}, nil)
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoHTTPS, MaxConnsPerHost: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstManifest(t, st, res)
	hs := stats[st.m.Hosts[0]]
	if hs.conns > 2 || res.Connections > 2 {
		t.Errorf("limit 2: server saw %d connections, Result %d", hs.conns, res.Connections)
	}
}

func TestLoadH2GoServer(t *testing.T) {
	st := newSite(t, "generic:n=40,mean=6k,depth=2", 2)
	target, stats := goServers(t, st, []string{"h2"}, nil)
	for _, tlsv := range []string{"1.2", "1.3"} {
		res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH2, TLSVersion: tlsv, InitialWindow: 256 << 10})
		if err != nil {
			t.Fatalf("TLS %s: %v", tlsv, err)
		}
		h := checkAgainstManifest(t, st, res)
		if res.Connections != len(st.m.Hosts) {
			t.Errorf("TLS %s: %d connections for %d hosts, want one each", tlsv, res.Connections, len(st.m.Hosts))
		}
		for host, n := range connsPerHost(h) {
			if n != 1 {
				t.Errorf("HAR shows %d connections to %s", n, host)
			}
		}
		if res.HeaderBytesCompressed >= res.HeaderBytesRaw {
			t.Errorf("HPACK did not compress: raw %d, compressed %d", res.HeaderBytesRaw, res.HeaderBytesCompressed)
		}
		if res.Condition.TLS != tlsv {
			t.Errorf("Condition.TLS = %q", res.Condition.TLS)
		}
	}
	for host, hs := range stats {
		if hs.conns != 2 {
			t.Errorf("%s: %d connections over two loads, want 2 (one per load)", host, hs.conns)
		}
	}
}

func TestLoadNginx(t *testing.T) {
	st := newSite(t, "generic:n=30,mean=5k,depth=2", 2)
	target := nginxServer(t, st)
	for _, proto := range []string{probe.ProtoHTTPS, probe.ProtoH2} {
		res, err := Load(context.Background(), target, Options{Proto: proto, TLSVersion: "1.2"})
		if err != nil {
			t.Fatalf("%s: %v", proto, err)
		}
		h := checkAgainstManifest(t, st, res)
		for host, n := range connsPerHost(h) {
			if proto == probe.ProtoH2 && n != 1 || n > DefaultMaxConnsPerHost {
				t.Errorf("%s: %d connections to %s", proto, n, host)
			}
		}
	}
}

// TestStreamingDiscovery proves that references are requested while the
// document is still arriving: the server holds back the second half of the
// HTML until the loader has asked for the first image. A loader that waited
// for the whole document would never get it and time out.
func TestStreamingDiscovery(t *testing.T) {
	for proto, alpn := range map[string]string{probe.ProtoHTTPS: "http/1.1", probe.ProtoH2: "h2"} {
		t.Run(proto, func(t *testing.T) { testStreamingDiscovery(t, proto, alpn) })
	}
}

func testStreamingDiscovery(t *testing.T, proto, alpn string) {
	st := newSite(t, "generic:n=12,mean=3k", 1)
	root := st.m.Resources[0]
	content, err := st.m.Content(0)
	if err != nil {
		t.Fatal(err)
	}
	firstChild := st.m.Resources[1]
	cut := firstChild.Discovery.Offset + len(st.m.RefURL(1)) + 20 // just past the first reference's tag
	if cut >= len(content) {
		t.Fatalf("page too small for the test")
	}
	asked := make(chan struct{})
	var once bool
	target, _ := goServers(t, st, []string{alpn}, func(host string, hs *hostStats) http.Handler {
		files := fileHandler(st.dir)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == root.Path {
				w.Header().Set("Content-Type", "text/html")
				w.Header().Set("Content-Length", itoa(len(content)))
				w.Write(content[:cut])
				w.(http.Flusher).Flush()
				select {
				case <-asked:
				case <-r.Context().Done():
					return
				}
				w.Write(content[cut:])
				return
			}
			if r.URL.Path == firstChild.Path && !once {
				once = true
				close(asked)
			}
			files.ServeHTTP(w, r)
		})
	})
	res, err := Load(context.Background(), target, Options{Proto: proto, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("the loader did not request %s before the document ended: %v", firstChild.Path, err)
	}
	checkAgainstManifest(t, st, res)
}

func TestNoGoroutinesLeft(t *testing.T) {
	st := newSite(t, "generic:n=20,mean=4k", 2)
	t1, _ := goServers(t, st, []string{"http/1.1"}, nil)
	t2, _ := goServers(t, st, []string{"h2"}, nil)
	t3, _ := spdyServers(t, st, probe.ProtoSPDY31, 0, true)
	before := runtime.NumGoroutine()
	for i := 0; i < 3; i++ {
		if _, err := Load(context.Background(), t3, Options{Proto: probe.ProtoSPDY31}); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(context.Background(), t1, Options{Proto: probe.ProtoHTTPS}); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(context.Background(), t2, Options{Proto: probe.ProtoH2}); err != nil {
			t.Fatal(err)
		}
	}
	// Goroutines of the servers' side of closed connections take a moment
	// to notice; the loader's own must all be gone.
	var after int
	for i := 0; i < 100; i++ {
		after = runtime.NumGoroutine()
		if after <= before {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	t.Fatalf("%d goroutines before the loads, %d after:\n%s", before, after, loaderStacks(string(buf[:n])))
}

// loaderStacks keeps the goroutine dumps that mention this package.
func loaderStacks(all string) string {
	var keep []string
	for _, g := range strings.Split(all, "\n\n") {
		if strings.Contains(g, "spdylab/loader.") && !strings.Contains(g, "TestNoGoroutinesLeft") {
			keep = append(keep, g)
		}
	}
	return strings.Join(keep, "\n\n")
}
