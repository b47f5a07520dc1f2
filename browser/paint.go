package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/probe"
)

// Paint metrics from Chromium's own performance timeline. Once the page is
// done, one Runtime.evaluate in the page reads its buffered 'paint' and
// 'largest-contentful-paint' entries (PerformanceObserver with buffered:
// true; the LCP entries are not in performance.getEntries) and the
// navigation entry's requestStart. The entries count from the document's
// time origin; the navigation entry's requestStart is the same instant as
// the Network domain's requestTime + sendStart of the document (both are
// Chromium's one load timing of that request), which puts the paints on
// the PLT's clock without comparing wall clocks.

// paintScript resolves to a paintSeen. It first lets two animation frames
// pass, so that the paint of what arrived last is presented and its entry
// queued; a buffered observer's first callback holds every LCP entry so
// far. Every wait is bounded, so a page that never paints still answers
// (about 0.55 s at most).
const paintScript = `(async () => {
  const frames = new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))));
  await Promise.race([frames, new Promise(r => setTimeout(r, 500))]);
  const lcps = await new Promise(resolve => {
    let po;
    const done = got => { po.disconnect(); resolve(got); };
    try {
      po = new PerformanceObserver(l => done(l.getEntries()));
      po.observe({type: 'largest-contentful-paint', buffered: true});
    } catch (e) { resolve([]); return; }
    setTimeout(() => done(po.takeRecords()), 50);
  });
  const fcp = performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint');
  const lcp = lcps.length ? lcps[lcps.length - 1] : null;
  const nav = performance.getEntriesByType('navigation')[0];
  const body = document.body;
  const links = [...document.querySelectorAll('link[rel~="stylesheet"]')];
  return {
    fcp: fcp ? fcp.startTime : -1,
    lcp: lcp ? lcp.startTime : -1,
    lcpURL: lcp ? (lcp.url || '') : '',
    lcpTag: lcp && lcp.element ? lcp.element.tagName : '',
    requestStart: nav ? nav.requestStart : -1,
    readyState: document.readyState,
    bodyText: body ? body.innerText.trim().length : -1,
    images: document.images.length,
    sheetsPending: links.filter(l => !l.sheet).length,
  };
})()`

// paintSeen is paintScript's answer (ms since the document's time origin;
// -1 = none).
type paintSeen struct {
	FCP           float64 `json:"fcp"`
	LCP           float64 `json:"lcp"`
	LCPURL        string  `json:"lcpURL"`
	LCPTag        string  `json:"lcpTag"`
	RequestStart  float64 `json:"requestStart"`
	ReadyState    string  `json:"readyState"`
	BodyText      int     `json:"bodyText"`
	Images        int     `json:"images"`
	SheetsPending int     `json:"sheetsPending"`
}

// paintTimeout bounds the paint read; the script itself waits at most
// about 0.55 s.
const paintTimeout = 5 * time.Second

// readPaint runs paintScript in the page (session sid). An error leaves the
// load without paint metrics, with the reason, never fails it.
func (s *session) readPaint(ctx context.Context, sid string) {
	ctx, cancel := context.WithTimeout(ctx, paintTimeout)
	defer cancel()
	if paintCostHook != nil {
		defer func(begin time.Time) { paintCostHook("timeline", time.Since(begin)) }(time.Now())
	}
	var out struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	err := s.conn.call(ctx, sid, "Runtime.evaluate", map[string]any{
		"expression": paintScript, "awaitPromise": true, "returnByValue": true}, &out)
	switch {
	case err != nil:
		s.paintErr = fmt.Sprintf("reading the page's paint timeline: %v", err)
	case out.ExceptionDetails != nil:
		s.paintErr = "reading the page's paint timeline: " + out.ExceptionDetails.Text
	default:
		var seen paintSeen
		if err := json.Unmarshal(out.Result.Value, &seen); err != nil {
			s.paintErr = fmt.Sprintf("reading the page's paint timeline: %v", err)
			return
		}
		s.paintSeen = &seen
	}
}

// paintOf turns what the page said into the result's paint metrics:
// sendStart is when the document's request (the last of its redirects) was
// sent, in ms after the PLT's origin.
func paintOf(seen *paintSeen, readErr string, sendStart float64) *probe.Paint {
	p := &probe.Paint{}
	if seen == nil {
		p.AddAbsent("no FCP or LCP: " + readErr)
		return p
	}
	if seen.RequestStart <= 0 || sendStart < 0 {
		p.AddAbsent("no FCP or LCP: the document's request start is unknown, so paints cannot be put on the PLT's clock")
		return p
	}
	onPLTClock := func(t float64) *float64 {
		v := math.Round((t-seen.RequestStart+sendStart)*1000) / 1000 // µs, as the HAR's times
		return &v
	}
	if seen.FCP >= 0 {
		p.FCPms = onPLTClock(seen.FCP)
	} else {
		p.AddAbsent("no FCP: " + whyNoPaint(seen))
	}
	if seen.LCP >= 0 {
		p.LCPms = onPLTClock(seen.LCP)
		p.LCPURL, p.LCPElement = seen.LCPURL, seen.LCPTag
	} else {
		p.AddAbsent("no LCP: " + whyNoPaint(seen))
	}
	return p
}

// documentSent is when the request of the document the page's timeline
// belongs to was sent, in ms after the PLT's origin: a redirected
// navigation's last request, which keeps the first one's id. -1 when
// unknown.
func documentSent(nav *exchange, all []*exchange) float64 {
	doc := nav
	for _, x := range all {
		if x.id == nav.id && x.start >= doc.start && !x.redirected {
			doc = x
		}
	}
	if doc.resp == nil || doc.resp.Timing == nil || doc.resp.Timing.SendStart < 0 {
		return -1
	}
	t := doc.resp.Timing
	return (t.RequestTime-networkStart(nav))*1000 + t.SendStart
}

// unfinishedPaint is what a failed load stores of its paints: nothing,
// unless the page had painted nothing by then, which it says with why (a
// stylesheet that never loaded holds every paint, and the load with it).
func unfinishedPaint(seen *paintSeen) *probe.Paint {
	if seen == nil || seen.FCP >= 0 {
		return nil
	}
	p := &probe.Paint{}
	p.AddAbsent("no FCP or LCP: " + whyNoPaint(seen))
	return p
}

// whyNoPaint says what the page held when it had painted nothing.
func whyNoPaint(seen *paintSeen) string {
	switch {
	case seen.SheetsPending > 0:
		return fmt.Sprintf("the page painted nothing: %d render-blocking stylesheet(s) never loaded", seen.SheetsPending)
	case seen.BodyText < 0:
		return "the page painted nothing: the document has no body"
	case seen.BodyText == 0 && seen.Images == 0:
		return "the page painted nothing: its body holds no text or image"
	}
	return fmt.Sprintf("the page painted no content by the end of the load (document %s, %d characters of text, %d images)",
		seen.ReadyState, seen.BodyText, seen.Images)
}

// skipPaintHook (benchmarks) leaves the paint timeline unread, to measure
// what reading it costs.
var skipPaintHook bool

// paintCostHook, when set (benchmarks), hears how long the paint timeline's
// read and the frames' Speed Index took in a load.
var paintCostHook func(what string, d time.Duration)

// frameHook, when set (tests), sees each load's frames and their clock.
var frameHook func(raw []rawFrame, toMs func(wall float64) float64)

// paint is the view's paint metrics once its load is done: FCP and LCP
// from the page's timeline and, when frames were recorded, Speed Index.
func (s *session) paint(nav *exchange, all []*exchange) *probe.Paint {
	p := paintOf(s.paintSeen, s.paintErr, documentSent(nav, all))
	sc := s.frames.Load()
	if sc == nil {
		return p
	}
	raw, err := sc.take()
	p.Frames = len(raw)
	if err == nil {
		// Frame times are Chromium's wall clock; the document's
		// requestWillBeSent has both its wall and monotonic time.
		origin := networkStart(nav)
		toMs := func(wall float64) float64 { return (wall-nav.wall)*1000 + (nav.start-origin)*1000 }
		if frameHook != nil {
			frameHook(raw, toMs)
		}
		begin := time.Now()
		var si float64
		if si, err = speedIndex(raw, toMs); err == nil {
			si = math.Round(si*1000) / 1000
			p.SpeedIndexMs = &si
		}
		if paintCostHook != nil {
			paintCostHook("frames", time.Since(begin))
		}
	}
	if err != nil {
		p.AddAbsent("no Speed Index: " + err.Error())
	}
	return p
}

// withPaint adds p's metrics to the HAR's page timings, which count from
// the document's requestWillBeSent: blocked ms before the PLT's origin.
func withPaint(pt har.PageTimings, p *probe.Paint, blocked float64) har.PageTimings {
	onPage := func(v *float64) *float64 {
		if v == nil {
			return nil
		}
		x := math.Round((*v+blocked)*1000) / 1000
		return &x
	}
	pt.FirstContentfulPaint = onPage(p.FCPms)
	pt.LargestContentfulPaint = onPage(p.LCPms)
	pt.LCPURL = p.LCPURL
	pt.SpeedIndex = onPage(p.SpeedIndexMs)
	return pt
}
