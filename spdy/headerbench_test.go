package spdy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"testing"
	"time"
)

// browsingExchange is one request/response pair of a synthetic but
// browser-faithful page visit, with headers in HTTP/1.1 order.
type browsingExchange struct {
	host    string
	reqLine string // "GET /x HTTP/1.1"
	req     [][2]string
	status  string // "200 OK"
	resp    [][2]string
	method  string
	path    string
}

// browsingStream generates n exchanges deterministically from seed: a few
// page visits over several hosts (site, static CDN, image CDN, analytics),
// with a 2012-era Chrome's request headers, realistic cookies, and typical
// server response headers.
func browsingStream(n int, seed int64) []browsingExchange {
	rng := rand.New(rand.NewSource(seed))
	const ua = "Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/537.11 (KHTML, like Gecko) Chrome/23.0.1271.97 Safari/537.11"
	hexs := func(k int) string {
		b := make([]byte, k)
		for i := range b {
			b[i] = "0123456789abcdef"[rng.Intn(16)]
		}
		return string(b)
	}
	type hostInfo struct {
		name, server, cookie string
	}
	hosts := []hostInfo{
		{"www.example-news.com", "Apache/2.2.22 (Ubuntu)",
			"__utma=173272373." + fmt.Sprint(rng.Int63()) + ".1354752000.1355356800.1355443200.14; __utmz=173272373.1354752000.1.1.utmcsr=(direct)|utmccn=(direct)|utmcmd=(none); session_id=" + hexs(32) + "; prefs=lang%3Den%26region%3Dus%26layout%3Dwide; _chartbeat2=" + hexs(24) + "; optimizelyEndUserId=oeu" + fmt.Sprint(rng.Int63()) + "r0." + hexs(16)},
		{"static.example-news.com", "nginx/1.2.6", ""},
		{"images.cdn-example.net", "ECS (lax/2E2F)", "cdn_pref=" + hexs(20)},
		{"ssl.analytics-example.com", "Golfe2", "NID=67=" + hexs(120) + "; PREF=ID=" + hexs(16) + ":FF=0:TM=1354752000:LM=1354752000:S=" + hexs(16)},
	}
	date := time.Date(2012, 12, 14, 10, 0, 0, 0, time.UTC)
	var out []browsingExchange
	page := 0
	for len(out) < n {
		page++
		pageURL := fmt.Sprintf("https://www.example-news.com/%d/12/14/world/article-%d.html", 2012, 1000+page)
		kinds := []string{"html"}
		for i := 0; i < 40+rng.Intn(20); i++ {
			switch r := rng.Intn(10); {
			case r < 2:
				kinds = append(kinds, "css")
			case r < 4:
				kinds = append(kinds, "js")
			case r < 9:
				kinds = append(kinds, "img")
			default:
				kinds = append(kinds, "beacon")
			}
		}
		for _, kind := range kinds {
			if len(out) == n {
				break
			}
			var h hostInfo
			var path, accept, ctype, cache string
			switch kind {
			case "html":
				h = hosts[0]
				path = pageURL[len("https://www.example-news.com"):]
				accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
				ctype, cache = "text/html; charset=utf-8", "private, max-age=0, must-revalidate"
			case "css":
				h = hosts[1]
				path = fmt.Sprintf("/css/%s.%s.css", []string{"main", "article", "print", "widgets"}[rng.Intn(4)], hexs(8))
				accept = "text/css,*/*;q=0.1"
				ctype, cache = "text/css", "public, max-age=31536000"
			case "js":
				h = hosts[1]
				path = fmt.Sprintf("/js/%s.min.js?v=%s", []string{"jquery-1.8.3", "app", "ads", "social", "comments"}[rng.Intn(5)], hexs(6))
				accept = "*/*"
				ctype, cache = "application/javascript", "public, max-age=31536000"
			case "img":
				h = hosts[2]
				path = fmt.Sprintf("/images/2012/12/14/%s/%s-%dx%d.jpg", []string{"world", "sports", "business"}[rng.Intn(3)], hexs(10), 100+rng.Intn(500), 80+rng.Intn(400))
				accept = "image/webp,*/*;q=0.8"
				ctype, cache = "image/jpeg", "max-age=2592000"
			default:
				h = hosts[3]
				path = fmt.Sprintf("/__utm.gif?utmwv=5.3.8&utms=%d&utmn=%d&utmhn=www.example-news.com&utmcs=UTF-8&utmsr=1920x1080&utmp=%%2F2012%%2F12%%2F14&utmac=UA-%d-1&utmcc=__utma%%3D%s", rng.Intn(40), rng.Int31(), rng.Intn(99999), hexs(20))
				accept = "image/webp,*/*;q=0.8"
				ctype, cache = "image/gif", "private, no-cache, no-cache=Set-Cookie, proxy-revalidate"
			}
			e := browsingExchange{host: h.name, method: "GET", path: path, reqLine: "GET " + path + " HTTP/1.1"}
			e.req = append(e.req, [2]string{"Host", h.name}, [2]string{"Connection", "keep-alive"},
				[2]string{"Accept", accept}, [2]string{"User-Agent", ua})
			if kind != "html" {
				e.req = append(e.req, [2]string{"Referer", pageURL})
			}
			e.req = append(e.req, [2]string{"Accept-Encoding", "gzip,deflate,sdch"},
				[2]string{"Accept-Language", "en-US,en;q=0.8"}, [2]string{"Accept-Charset", "ISO-8859-1,utf-8;q=0.7,*;q=0.3"})
			if h.cookie != "" {
				e.req = append(e.req, [2]string{"Cookie", h.cookie})
			}
			date = date.Add(time.Duration(rng.Intn(900)) * time.Millisecond)
			e.status = "200 OK"
			size := 200 + rng.Intn(120000)
			lm := date.Add(-time.Duration(rng.Intn(90*24)) * time.Hour)
			e.resp = append(e.resp, [2]string{"Date", date.Format(http.TimeFormat)}, [2]string{"Server", h.server},
				[2]string{"Content-Type", ctype}, [2]string{"Content-Length", fmt.Sprint(size)},
				[2]string{"Cache-Control", cache})
			if kind != "html" && kind != "beacon" {
				e.resp = append(e.resp, [2]string{"Last-Modified", lm.Format(http.TimeFormat)},
					[2]string{"ETag", fmt.Sprintf("\"%s-%x-%s\"", hexs(4), size, hexs(8))},
					[2]string{"Expires", date.Add(30 * 24 * time.Hour).Format(http.TimeFormat)},
					[2]string{"Accept-Ranges", "bytes"})
			}
			if kind == "css" || kind == "js" || kind == "html" {
				e.resp = append(e.resp, [2]string{"Vary", "Accept-Encoding"}, [2]string{"Content-Encoding", "gzip"})
			}
			if kind == "html" || rng.Intn(10) == 0 {
				e.resp = append(e.resp, [2]string{"Set-Cookie", fmt.Sprintf("session_id=%s; path=/; domain=.%s; expires=%s; HttpOnly", hexs(32), h.name, date.Add(24*time.Hour).Format(http.TimeFormat))})
			}
			if kind == "html" {
				e.resp = append(e.resp, [2]string{"X-Powered-By", "PHP/5.3.10-1ubuntu3.4"}, [2]string{"P3P", "CP=\"NOI DSP COR NID CURa ADMa DEVa PSAa PSDa OUR BUS COM INT OTC PUR STA\""})
			}
			out = append(out, e)
		}
	}
	return out
}

func http1Size(line string, hdr [][2]string) int {
	n := len(line) + 2
	for _, kv := range hdr {
		n += len(kv[0]) + 2 + len(kv[1]) + 2
	}
	return n + 2
}

// spdyRequestHeader converts like RoundTrip does (lowercase, hop-by-hop
// dropped, pseudo-headers added).
func (e browsingExchange) spdyRequest() Header {
	h := Header{":method": {e.method}, ":path": {e.path}, ":version": {"HTTP/1.1"}, ":host": {e.host}, ":scheme": {"https"}}
	hh := http.Header{}
	for _, kv := range e.req {
		hh.Add(kv[0], kv[1])
	}
	fromHTTPHeader(h, hh)
	return h
}

func (e browsingExchange) spdyResponse() Header {
	h := Header{":status": {e.status}, ":version": {"HTTP/1.1"}}
	hh := http.Header{}
	for _, kv := range e.resp {
		hh.Add(kv[0], kv[1])
	}
	fromHTTPHeader(h, hh)
	return h
}

type compressionTotals struct {
	http1, spdyRaw, spdyCompressed int
}

func (c compressionTotals) String() string {
	return fmt.Sprintf("HTTP/1.1 %7d B, SPDY raw %7d B, compressed %6d B: %.1f%% smaller than HTTP/1.1, %.1f%% smaller than the raw SPDY block",
		c.http1, c.spdyRaw, c.spdyCompressed,
		100*(1-float64(c.spdyCompressed)/float64(c.http1)), 100*(1-float64(c.spdyCompressed)/float64(c.spdyRaw)))
}

// measureHeaderCompression runs the stream through one SPDY session per
// host (one compression context per direction, as a browser would).
func measureHeaderCompression(t testing.TB, stream []browsingExchange) (req, resp compressionTotals) {
	type ctx struct{ up, down *headerEncoder }
	sessions := map[string]*ctx{}
	for _, e := range stream {
		c := sessions[e.host]
		if c == nil {
			c = &ctx{newHeaderEncoder(), newHeaderEncoder()}
			sessions[e.host] = c
		}
		_, sz, err := c.up.encode(nil, e.spdyRequest())
		if err != nil {
			t.Fatal(err)
		}
		req.http1 += http1Size(e.reqLine, e.req)
		req.spdyRaw += sz.Raw
		req.spdyCompressed += sz.Compressed
		_, sz, err = c.down.encode(nil, e.spdyResponse())
		if err != nil {
			t.Fatal(err)
		}
		resp.http1 += http1Size("HTTP/1.1 "+e.status, e.resp)
		resp.spdyRaw += sz.Raw
		resp.spdyCompressed += sz.Compressed
	}
	return req, resp
}

// TestHeaderCompressionReport prints the header savings on a 150-exchange
// browsing stream (go test ./spdy -run TestHeaderCompressionReport -v) and
// checks the ordering every SPDY implementation must achieve.
func TestHeaderCompressionReport(t *testing.T) {
	stream := browsingStream(150, 2012)
	hosts := map[string]bool{}
	for _, e := range stream {
		hosts[e.host] = true
	}
	req, resp := measureHeaderCompression(t, stream)
	t.Logf("%d exchanges over %d hosts", len(stream), len(hosts))
	t.Logf("requests:  %s", req)
	t.Logf("responses: %s", resp)
	for name, c := range map[string]compressionTotals{"requests": req, "responses": resp} {
		if !(c.spdyCompressed < c.spdyRaw && c.spdyCompressed < c.http1) {
			t.Errorf("%s: compression did not shrink headers: %s", name, c)
		}
	}
	// Through a real session the client's Stats agree with the codec.
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(204)
	})
	p := newPair(t, Config{}, nil, h)
	var sent int
	for _, e := range stream[:20] {
		req, _ := http.NewRequest(http.MethodGet, "https://"+e.host+e.path, nil)
		for _, kv := range e.req {
			req.Header.Add(kv[0], kv[1])
		}
		resp, err := p.cc.RoundTrip(req.WithContext(context.Background()))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		sent++
	}
	st := p.cc.Stats()
	if st.HeaderBytesSentCompressed == 0 || st.HeaderBytesSentCompressed*3 > st.HeaderBytesSentRaw {
		t.Fatalf("session header stats raw %d compressed %d", st.HeaderBytesSentRaw, st.HeaderBytesSentCompressed)
	}
}

func typicalRequest() Header {
	return browsingStream(3, 1)[1].spdyRequest()
}

func BenchmarkHeaderEncode(b *testing.B) {
	stream := browsingStream(200, 7)
	enc := newHeaderEncoder()
	var dst []byte
	b.ReportAllocs()
	raw := 0
	for i := 0; i < b.N; i++ {
		var sz BlockSize
		dst, sz, _ = enc.encode(dst[:0], stream[i%len(stream)].spdyRequest())
		raw += sz.Raw
	}
	b.SetBytes(int64(raw / max(b.N, 1)))
}

func BenchmarkHeaderDecode(b *testing.B) {
	stream := browsingStream(200, 7)
	enc := newHeaderEncoder()
	var blocks [][]byte
	raw := 0
	for i := 0; i < 2000; i++ {
		wire, sz, _ := enc.encode(nil, stream[i%len(stream)].spdyRequest())
		blocks = append(blocks, wire)
		raw += sz.Raw
	}
	b.SetBytes(int64(raw / len(blocks)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; {
		dec := newHeaderDecoder(0)
		for j := 0; j < len(blocks) && i < b.N; j, i = j+1, i+1 {
			if _, _, err := dec.decode(blocks[j], 1); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkFramerData(b *testing.B) {
	payload := make([]byte, DefaultMaxFrameSize)
	var buf bytes.Buffer
	w := NewFramer(&buf, nil, 0)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf.Reset()
		w.WriteFrame(&DataFrame{Stream: 1, Data: payload})
		w.Flush()
		r := NewFramer(nil, &buf, 0)
		if _, err := r.ReadFrame(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSessionDownload measures one 8 MiB response over loopback TCP
// through the whole stack (scheduler, flow control with 1 MiB windows).
func BenchmarkSessionDownload(b *testing.B) {
	body := make([]byte, 8<<20)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	cfg := Config{InitialWindowSize: 1 << 20, SessionWindowSize: 1 << 20}
	c, s := tcpPipe(b)
	srv := &Server{Config: cfg, Handler: h}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.ServeConn(ctx, s); close(done) }()
	cc, err := NewClientConn(c, &ClientConfig{Config: cfg})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req, _ := http.NewRequest(http.MethodGet, "https://bench.test/", nil)
		resp, err := cc.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.StopTimer()
	cc.Close()
	cancel()
	<-done
}
