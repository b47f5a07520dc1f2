package browser

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"

	"math"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/loader"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// BenchmarkFidelity is a first look at the loader's distance from real
// Chromium: pageA and pageB on 1 and 4 hosts at 100 ms RTT, 10/1 Mbit/s,
// 50-packet queues, TLS 1.3, https and h2, the clients interleaved load by
// load on one testbed per cell. It logs per cell the median PLT of each
// client and their ratio, Chromium's CPU seconds per load, and what the
// HARs show of the mechanisms that can set the loader apart from a
// browser (in-flight image requests, request header sizes, connections,
// uplink queue drops). Run with
//
//	go test ./browser -run '^$' -bench Fidelity -benchtime 1x -v
//
// SPDYLAB_FIDELITY_RUNS sets the loads per client and cell (default 5);
// SPDYLAB_FIDELITY_HARS names a directory that receives every load's HAR.
func BenchmarkFidelity(b *testing.B) {
	requireChromium(b)
	testutil.RequireRoot(b)
	runs := benchRuns("SPDYLAB_FIDELITY_RUNS", 5)
	for i := 0; i < b.N; i++ {
		for _, pg := range []string{"pageA", "pageB"} {
			for _, hosts := range []int{1, 4} {
				fidelityCell(b, pg, hosts, runs)
			}
		}
	}
}

type clientStats struct {
	plt, cpu, inflight, inflightHost, reqHdr, conns, drops []float64
	failed                                                 int
}

func fidelityCell(b *testing.B, pg string, hosts, runs int) {
	ctx := context.Background()
	site := newLabSite(b, pg, hosts)
	tb, err := netem.New(ctx, netem.Config{Shards: hosts, Link: probe.Link{
		RTT: 100 * time.Millisecond, DownBps: 10_000_000, UpBps: 1_000_000, QueuePkts: 50, Shared: true}})
	if err != nil {
		b.Fatal(err)
	}
	defer tb.Close()
	base := map[string]string{}
	resolve := map[string]string{}
	for _, h := range tb.Servers() {
		srv, err := server.New(server.Config{Root: site.dir, Certificate: &site.cert, HostNames: site.m.Hosts})
		if err != nil {
			b.Fatal(err)
		}
		l, err := h.Listen("tcp", h.HostPort(443))
		if err != nil {
			b.Fatal(err)
		}
		go srv.Serve(l)
		defer srv.Close()
		base[h.Name] = "https://" + h.HostPort(443)
		resolve[h.Name] = h.Addr.String()
	}
	var cpu float64
	cpuHook = func(s float64) { cpu = s }
	defer func() { cpuHook = nil }()
	for _, proto := range []string{probe.ProtoHTTPS, probe.ProtoH2} {
		st := map[string]*clientStats{"chromium": {}, "loader": {}}
		for run := 0; run < runs; run++ {
			for _, client := range []string{"chromium", "loader"} {
				tb.ResetCounters()
				var res probe.Result
				var err error
				if client == "chromium" {
					res, err = Load(ctx, Options{URL: site.m.URL(0), Host: tb.Client(), Proto: proto, TLSVersion: "1.3",
						Resolve: resolve, TrustCerts: []*x509.Certificate{site.ca}, Manifest: site.m})
				} else {
					res, err = loader.Load(ctx, loader.Target{Manifest: site.m, BaseURLs: base}, loader.Options{
						Proto: proto, TLSVersion: "1.3", Dial: tb.Client().DialContext, RootCAs: caPool(site.ca)})
				}
				s := st[client]
				if err != nil {
					s.failed++
					b.Logf("%s %s %d hosts %s: %v", client, pg, hosts, proto, err)
					continue
				}
				s.plt = append(s.plt, res.PLTms)
				s.conns = append(s.conns, float64(res.Connections))
				s.drops = append(s.drops, float64(tb.Counters().Up.PktsQueueDrop+tb.Counters().Down.PktsQueueDrop))
				if client == "chromium" {
					s.cpu = append(s.cpu, cpu)
				}
				if dir := os.Getenv("SPDYLAB_FIDELITY_HARS"); dir != "" {
					name := fmt.Sprintf("%s-%d-%s-%s-%d.har", pg, hosts, strings.ReplaceAll(proto, "/", ""), client, run)
					if err := os.WriteFile(filepath.Join(dir, name), res.HAR, 0o644); err != nil {
						b.Fatal(err)
					}
				}
				m := harMechanisms(res.HAR)
				s.inflight = append(s.inflight, m.maxInflight)
				s.inflightHost = append(s.inflightHost, m.maxInflightHost)
				s.reqHdr = append(s.reqHdr, m.imageReqHeader)
			}
		}
		c, l := st["chromium"], st["loader"]
		b.Logf("%s %d host(s) %-5s PLT median chromium %6.0f ms loader %6.0f ms ratio %.2f | in-flight images max page %2.0f/%2.0f host %2.0f/%2.0f | image req header %3.0f/%3.0f B | conns %2.0f/%2.0f | queue drops %2.0f/%2.0f | chromium CPU %.2f s/load | failed %d/%d",
			pg, hosts, proto, median(c.plt), median(l.plt), median(l.plt)/median(c.plt),
			median(c.inflight), median(l.inflight), median(c.inflightHost), median(l.inflightHost),
			median(c.reqHdr), median(l.reqHdr), median(c.conns), median(l.conns), median(c.drops), median(l.drops),
			median(c.cpu), c.failed, l.failed)
	}
}

func caPool(c *x509.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(c)
	return p
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// mechanisms are what a HAR (loader's or Chromium's) shows of request
// scheduling: the most image requests in flight at once (sent, not yet
// complete) on the page and on one host, and the median request header
// size of image requests.
type mechanisms struct {
	maxInflight, maxInflightHost, imageReqHeader float64
}

func harMechanisms(b []byte) mechanisms {
	var doc struct {
		Log struct {
			Entries []struct {
				Started string  `json:"startedDateTime"`
				Time    float64 `json:"time"`
				Request struct {
					URL         string `json:"url"`
					HeadersSize int64  `json:"headersSize"`
				} `json:"request"`
				Response struct {
					Content struct {
						MimeType string `json:"mimeType"`
					} `json:"content"`
				} `json:"response"`
				Timings har.Timings `json:"timings"`
			} `json:"entries"`
		} `json:"log"`
	}
	if json.Unmarshal(b, &doc) != nil {
		return mechanisms{}
	}
	type span struct {
		host       string
		start, end float64
	}
	var spans []span
	var hdr []float64
	for _, e := range doc.Log.Entries {
		if !strings.HasPrefix(e.Response.Content.MimeType, "image/") || strings.HasSuffix(e.Request.URL, "/favicon.ico") {
			continue
		}
		t0, err := time.Parse(time.RFC3339Nano, e.Started)
		if err != nil {
			continue
		}
		start := float64(t0.UnixMicro()) / 1000
		for _, v := range []float64{e.Timings.Blocked, e.Timings.DNS, e.Timings.Connect} {
			start += math.Max(0, v)
		}
		u, _ := url.Parse(e.Request.URL)
		spans = append(spans, span{u.Hostname(), start, float64(t0.UnixMicro())/1000 + e.Time})
		hdr = append(hdr, float64(e.Request.HeadersSize))
	}
	var m mechanisms
	m.imageReqHeader = median(hdr)
	for _, a := range spans {
		page, host := 0, 0
		for _, o := range spans {
			if o.start <= a.start && a.start < o.end {
				page++
				if o.host == a.host {
					host++
				}
			}
		}
		m.maxInflight = math.Max(m.maxInflight, float64(page))
		m.maxInflightHost = math.Max(m.maxInflightHost, float64(host))
	}
	return m
}
