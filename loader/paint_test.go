package loader

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// entryEnds are the HAR's resources' ends in ms after the page's start
// (startedDateTime is written to the millisecond).
func entryEnds(t *testing.T, harDoc []byte) map[int]float64 {
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
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(harDoc, &doc); err != nil || len(doc.Log.Pages) != 1 {
		t.Fatalf("HAR: %v", err)
	}
	t0, _ := time.Parse(time.RFC3339Nano, doc.Log.Pages[0].Started)
	out := map[int]float64{}
	for _, e := range doc.Log.Entries {
		if e.ResourceID != nil {
			s, _ := time.Parse(time.RFC3339Nano, e.Started)
			out[*e.ResourceID] = float64(s.Sub(t0).Microseconds())/1000 + e.Time
		}
	}
	return out
}

// The loader's FCP is the document, its stylesheets and its blocking
// scripts done; its LCP the recorded LCP image done; without a recorded
// LCP, or for Speed Index, it stores nothing and says why.
func TestLoaderPaintEstimates(t *testing.T) {
	st := newSite(t, "pageA", 1)
	target := labServer(t, st, server.PushNone)
	m := st.m
	largest := -1
	for _, r := range m.Resources {
		if r.Type == page.TypeImage && (largest < 0 || r.Size > m.Resources[largest].Size) {
			largest = r.ID
		}
	}
	for _, lcpKnown := range []bool{false, true} {
		m.LCPResource = nil
		if lcpKnown {
			m.LCPResource = &largest
		}
		res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH2, TLSVersion: "1.2"})
		if err != nil {
			t.Fatal(err)
		}
		p := res.Paint
		if p == nil || !p.Estimated || p.FCPms == nil || p.SpeedIndexMs != nil || !strings.Contains(p.Absent, "no Speed Index: the loader draws no frames") {
			t.Fatalf("paint %+v: want an estimated FCP, no Speed Index with the reason", p)
		}
		ends := entryEnds(t, res.HAR)
		// Generated pages mark no script async or defer.
		want, blocking := ends[0], 0
		for _, r := range m.Resources {
			if r.Discovery.Kind == page.KindRef && r.Parent == 0 && (r.Type == page.TypeCSS || r.Type == page.TypeJS) {
				want = math.Max(want, ends[r.ID])
				blocking++
			}
		}
		t.Logf("FCP %.1f ms over %d blocking resources", *p.FCPms, blocking)
		// The HAR writes start times to the millisecond.
		if math.Abs(*p.FCPms-want) > 1 {
			t.Errorf("FCP %.3f ms; the document and its %d blocking resources were done at %.3f ms", *p.FCPms, blocking, want)
		}
		if !lcpKnown {
			if p.LCPms != nil || !strings.Contains(p.Absent, "no LCP: the page's largest contentful element is unknown") {
				t.Errorf("LCP %v, absent %q: want none, with the reason", p.LCPms, p.Absent)
			}
			continue
		}
		if wantLCP := math.Max(*p.FCPms, ends[largest]); p.LCPms == nil || math.Abs(*p.LCPms-wantLCP) > 1 {
			t.Errorf("LCP %v; the recorded LCP image was done at %.3f ms (FCP %.3f)", p.LCPms, ends[largest], *p.FCPms)
		}
	}
}
