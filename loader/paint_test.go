package loader

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// entryEnds are the HAR's resources' ends in ms after the page's start
// (startedDateTime is written to the millisecond).
func entryEnds(t *testing.T, harDoc []byte) (map[int]float64, docTimes) {
	t.Helper()
	var doc struct {
		Log struct {
			Pages []struct {
				Started string `json:"startedDateTime"`
			} `json:"pages"`
			Entries []struct {
				Started    string  `json:"startedDateTime"`
				Time       float64 `json:"time"`
				ResourceID *int    `json:"_resourceId"`
				Timings    struct {
					Blocked, DNS, Connect, Send, Wait float64
				} `json:"timings"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(harDoc, &doc); err != nil || len(doc.Log.Pages) != 1 {
		t.Fatalf("HAR: %v", err)
	}
	t0, _ := time.Parse(time.RFC3339Nano, doc.Log.Pages[0].Started)
	out := map[int]float64{}
	var root docTimes
	for _, e := range doc.Log.Entries {
		if e.ResourceID != nil {
			s, _ := time.Parse(time.RFC3339Nano, e.Started)
			start := float64(s.Sub(t0).Microseconds()) / 1000
			out[*e.ResourceID] = start + e.Time
			if *e.ResourceID == 0 {
				tm := e.Timings
				root = docTimes{start + max(tm.Blocked, 0) + max(tm.DNS, 0) + max(tm.Connect, 0) + tm.Send + tm.Wait, start + e.Time}
			}
		}
	}
	return out, root
}

// docTimes are the HAR's document entry's first byte and end, in ms after
// the page's start.
type docTimes struct{ firstByte, end float64 }

// The loader's FCP waits for the document's first text and for the
// stylesheets and blocking scripts referenced before it, not for those
// after it; its LCP is the recorded LCP image done; without a recorded
// LCP, or for Speed Index, it stores nothing and says why. The renderer's
// paint cost comes after both.
func TestLoaderPaintEstimates(t *testing.T) {
	st := newSite(t, "pageA", 1)
	target := labServer(t, st, server.PushNone)
	m := st.m
	doc, err := os.ReadFile(filepath.Join(st.dir, m.Root().SiteFile()))
	if err != nil {
		t.Fatal(err)
	}
	// Synthesized documents' text is their filler paragraphs.
	textAt := bytes.Index(doc, []byte("<p>"))
	if textAt < 0 {
		t.Fatal("the page's document has no text")
	}
	largest := -1
	for _, r := range m.Resources {
		if r.Type == page.TypeImage && (largest < 0 || r.Size > m.Resources[largest].Size) {
			largest = r.ID
		}
	}
	for i, lcpKnown := range []bool{false, true, true} {
		m.LCPResource = nil
		if lcpKnown {
			m.LCPResource = &largest
		}
		paint := time.Duration(i/2) * 40 * time.Millisecond // the last pass with a paint cost
		paintMs := float64(paint.Milliseconds())
		res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH2, TLSVersion: "1.2", Renderer: RendererCosts{PaintCost: paint}})
		if err != nil {
			t.Fatal(err)
		}
		p := res.Paint
		if p == nil || !p.Estimated || p.FCPms == nil || p.SpeedIndexMs != nil || !strings.Contains(p.Absent, "no Speed Index: the loader draws no frames") {
			t.Fatalf("paint %+v: want an estimated FCP, no Speed Index with the reason", p)
		}
		ends, root := entryEnds(t, res.HAR)
		lo, hi := root.firstByte+paintMs, root.end+paintMs
		var before, after int
		for _, r := range m.Resources {
			if r.Discovery.Kind != page.KindRef || r.Parent != 0 || (r.Type != page.TypeCSS && r.Type != page.TypeJS) {
				continue
			}
			// Generated pages mark no script async or defer.
			if r.Discovery.Offset < textAt {
				lo, hi = math.Max(lo, ends[r.ID]+paintMs), math.Max(hi, ends[r.ID]+paintMs)
				before++
			} else {
				after++
			}
		}
		t.Logf("FCP %.3f ms: document %.3f-%.3f ms, %d blocking resources before its text, %d after", *p.FCPms, root.firstByte, root.end, before, after)
		// The HAR writes start times to the millisecond.
		if *p.FCPms < lo-1 || *p.FCPms > hi+1 {
			t.Errorf("FCP %.3f ms; want between %.3f and %.3f ms (the document's text and what blocks it, then a paint cost of %v)", *p.FCPms, lo, hi, paint)
		}
		if !lcpKnown {
			if p.LCPms != nil || !strings.Contains(p.Absent, "no LCP: the page's largest contentful element is unknown") {
				t.Errorf("LCP %v, absent %q: want none, with the reason", p.LCPms, p.Absent)
			}
			continue
		}
		if wantLCP := math.Max(*p.FCPms, ends[largest]+paintMs); p.LCPms == nil || math.Abs(*p.LCPms-wantLCP) > 1 {
			t.Errorf("LCP %v; the recorded LCP image was done at %.3f ms (FCP %.3f)", p.LCPms, ends[largest], *p.FCPms)
		}
	}
}

// The scan finds the first text a browser shows (not the title, a
// script's or a style's, nor anything in the head) and still every
// reference.
func TestScanFindsTheFirstVisibleText(t *testing.T) {
	doc := "<!doctype html><html><head><title>t</title><style>p{}</style><link rel=stylesheet href=a.css></head>\n" +
		"<body>\n <script src=b.js></script><script>var x = 1</script><noscript>n</noscript><p>shown</p><p>more</p></body></html>"
	base, _ := url.Parse("https://h.test/")
	at := -1
	calls := 0
	var refs []string
	if _, err := scanHTMLText(strings.NewReader(doc), base, func(r reference) { refs = append(refs, r.Raw) }, func(offset int) { at = offset; calls++ }); err != nil {
		t.Fatal(err)
	}
	// Looking for text must not cost the scan its references.
	if strings.Join(refs, ",") != "a.css,b.js" {
		t.Errorf("references %v while looking for text, want a.css and b.js", refs)
	}
	if want := strings.Index(doc, "shown"); at != want || calls != 1 {
		t.Errorf("first text at %d (%d calls), want %d once", at, calls, want)
	}
	at = -1
	scanHTMLText(strings.NewReader("<html><head><title>only a title</title></head><body> \n</body></html>"), base, func(reference) {}, func(offset int) { at = offset })
	if at != -1 {
		t.Errorf("a body without text gave first text at %d", at)
	}
}

// What holds the first paint: stylesheets and blocking scripts before the
// first text, and stylesheets those stylesheets import; nothing after it.
func TestBlocksFirstText(t *testing.T) {
	ref := func(typ string, parent *entry, offset int, async bool) *entry {
		return &entry{typ: typ, parent: parent, async: async, res: &page.Resource{Discovery: page.Discovery{Kind: page.KindRef, Offset: offset}}}
	}
	doc := &entry{typ: page.TypeHTML, res: &page.Resource{Discovery: page.Discovery{Kind: page.KindRoot}}}
	cssBefore := ref(page.TypeCSS, doc, 10, false)
	cssAfter := ref(page.TypeCSS, doc, 90, false)
	for _, tc := range []struct {
		name string
		e    *entry
		want bool
	}{
		{"stylesheet before the text", cssBefore, true},
		{"stylesheet after the text", cssAfter, false},
		{"script before the text", ref(page.TypeJS, doc, 20, false), true},
		{"async script before the text", ref(page.TypeJS, doc, 20, true), false},
		{"script after the text", ref(page.TypeJS, doc, 60, false), false},
		{"image before the text", ref(page.TypeImage, doc, 5, false), false},
		{"import of a stylesheet before the text", ref(page.TypeCSS, cssBefore, 500, false), true},
		{"import of a stylesheet after the text", ref(page.TypeCSS, cssAfter, 5, false), false},
		{"the document", doc, false},
	} {
		if got := blocksFirstText(tc.e, doc, 50); got != tc.want {
			t.Errorf("%s: blocks the first paint %v, want %v", tc.name, got, tc.want)
		}
	}
}
