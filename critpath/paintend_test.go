package critpath

import (
	"math"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// paintPage is a document referencing a stylesheet (1), a script (2) and
// an image (3); the image ends last, the stylesheet before the script.
func paintPage() (*page.Manifest, *har.Document) {
	h := "s1.spdylab.test"
	m := &page.Manifest{Name: "t", Hosts: []string{h}, Resources: []page.Resource{
		{ID: 0, Path: "/", Host: h, Size: 10000, Type: page.TypeHTML, Parent: -1, Discovery: page.Discovery{Kind: page.KindRoot}},
		{ID: 1, Path: "/a.css", Host: h, Size: 1000, Type: page.TypeCSS, Parent: 0, Discovery: page.Discovery{Kind: page.KindRef, Offset: 100}},
		{ID: 2, Path: "/b.js", Host: h, Size: 1000, Type: page.TypeJS, Parent: 0, Discovery: page.Discovery{Kind: page.KindRef, Offset: 200}},
		{ID: 3, Path: "/c.jpg", Host: h, Size: 50000, Type: page.TypeImage, Parent: 0, Discovery: page.Discovery{Kind: page.KindRef, Offset: 300}},
	}}
	tm := func(wait, recv float64) har.Timings {
		return har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 1, Wait: wait, Receive: recv}
	}
	root := entry(0, "1", 0, har.Timings{Blocked: 0, DNS: -1, Connect: 100, SSL: 100, Send: 1, Wait: 110, Receive: 50}, 10000)
	css := entry(1, "1", 320, tm(110, 10), 1000)   // ends 441
	js := entry(2, "1", 322, tm(150, 10), 1000)    // ends 483
	img := entry(3, "1", 324, tm(110, 400), 50000) // ends 835
	return m, doc(root, css, js, img)
}

func paintResult(fcp, lcp float64, lcpURL string) *probe.Result {
	r := linkResult(840)
	r.Paint = &probe.Paint{FCPms: &fcp, LCPms: &lcp, LCPURL: lcpURL}
	return r
}

func TestPaintChainsEndAtThePaintsResource(t *testing.T) {
	m, d := paintPage()
	img := d.Log.Entries[3].Request.URL
	r := paintResult(520, 900, img)
	plt := Analyze(Input{Result: r, Doc: d, Manifest: m})
	if last := plt.Path[len(plt.Path)-1]; last.ResourceID != 3 {
		t.Fatalf("PLT's chain ends at %d, want the image", last.ResourceID)
	}
	// FCP at 520: the script (done 483) is the last render-blocking
	// resource before it; the image is none.
	fcp := Analyze(Input{Result: r, Doc: d, Manifest: m, Metric: probe.MetricFCP})
	checkSum(t, fcp, 520)
	if n := len(fcp.Path); n != 2 || fcp.Path[0].ResourceID != 0 || fcp.Path[1].ResourceID != 2 {
		t.Fatalf("FCP chain %+v: want the document, then the script", fcp.Path)
	}
	// A paint before any subresource is done ends at the document.
	early := paintResult(300, 900, img)
	if b := Analyze(Input{Result: early, Doc: d, Manifest: m, Metric: probe.MetricFCP}); len(b.Path) != 1 || b.Path[0].ResourceID != 0 {
		t.Fatalf("FCP before any subresource: chain %+v, want the document alone", b.Path)
	}
	lcp := Analyze(Input{Result: r, Doc: d, Manifest: m, Metric: probe.MetricLCP})
	checkSum(t, lcp, 900)
	if last := lcp.Path[len(lcp.Path)-1]; last.ResourceID != 3 || last.URL != img {
		t.Fatalf("LCP chain ends at %+v: want the LCP image", last)
	}
	if lcp.Ms[probe.CatOther] < 900-835-0.01 {
		t.Errorf("LCP: the 65 ms from the image's last byte to the paint are not client time: %v", lcp.Ms)
	}
}

func TestPaintChainUnknownSaysWhy(t *testing.T) {
	m, d := paintPage()
	for _, tc := range []struct {
		name   string
		r      *probe.Result
		m      *page.Manifest
		metric string
		want   string
	}{
		{"no paint record", linkResult(840), m, probe.MetricFCP, "has no FCP"},
		{"LCP element unnamed", paintResult(520, 900, ""), m, probe.MetricLCP, "LCP element's resource is unknown"},
		{"LCP image not loaded", paintResult(520, 900, "https://x.test/none.jpg"), m, probe.MetricLCP, "not in the load's HAR"},
		{"FCP without manifest", paintResult(520, 900, ""), nil, probe.MetricFCP, "without the page's manifest"},
		{"Speed Index", paintResult(520, 900, ""), m, probe.MetricSI, "no single chain"},
	} {
		b := Analyze(Input{Result: tc.r, Doc: d, Manifest: tc.m, Metric: tc.metric})
		if !strings.Contains(b.None, tc.want) || len(b.Ms) != 0 {
			t.Errorf("%s: breakdown %+v, want none saying %q", tc.name, b, tc.want)
		}
	}
	// A text block's LCP ends where FCP's rule does.
	r := paintResult(520, 600, "")
	r.Paint.LCPElement = "P"
	b := Analyze(Input{Result: r, Doc: d, Manifest: m, Metric: probe.MetricLCP})
	if b.None != "" || b.Path[len(b.Path)-1].ResourceID != 2 || math.Abs(b.Total()-600) > 6 {
		t.Fatalf("text LCP: %+v, want the chain to end at the script and add up to 600", b)
	}
}
