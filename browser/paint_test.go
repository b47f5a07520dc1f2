package browser

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"net"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"
)

// paintBlock is one block of the known page: a black image at a place of
// the 1280x800 window, served after delay.
type paintBlock struct {
	x, y, w, h int
	delay      time.Duration
}

// knownBlocks paint, in order, 5/16, 5/32 and 17/32 of the blocks' area
// (the largest last, so it is the LCP), all inside the viewport of the
// 1280x800 window, so visual progress is known by construction.
var knownBlocks = []paintBlock{
	{0, 0, 640, 300, 300 * time.Millisecond},
	{640, 0, 640, 150, 600 * time.Millisecond},
	{0, 300, 1280, 250, 900 * time.Millisecond},
}

// servePaintPages serves the known page at /blocks, an empty body at
// /empty, on loopback over plain HTTP.
func servePaintPages(t *testing.T) string {
	t.Helper()
	black := func(w, h int) []byte {
		img := image.NewGray(image.Rect(0, 0, w, h))
		var b bytes.Buffer
		// Uncompressed: Chromium leaves images of under 0.05 bits per
		// pixel (a compressed solid block) out of LCP.
		enc := png.Encoder{CompressionLevel: png.NoCompression}
		enc.Encode(&b, img) // zero = black
		return b.Bytes()
	}
	mux := http.NewServeMux()
	var html strings.Builder
	html.WriteString(`<!doctype html><html><head><style>html,body{margin:0;background:#fff}img{position:absolute;display:block}</style></head><body>`)
	for i, b := range knownBlocks {
		img := black(b.w, b.h)
		delay := b.delay
		mux.HandleFunc(fmt.Sprintf("/b%d.png", i), func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(delay)
			w.Header().Set("Content-Type", "image/png")
			w.Write(img)
		})
		fmt.Fprintf(&html, `<img src="/b%d.png" style="left:%dpx;top:%dpx;width:%dpx;height:%dpx">`, i, b.x, b.y, b.w, b.h)
	}
	html.WriteString(`</body></html>`)
	mux.HandleFunc("/blocks", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(html.String())) })
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<!doctype html><html><head></head><body></body></html>`))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// TestPaintMetricsOfAKnownPage loads a page whose visual progress is known
// by construction: black blocks of known area on a white page, each an
// image its server holds back for a known delay. FCP, LCP and Speed Index
// must be where the construction puts them; the Speed Index must equal the
// one computed from the frames by looking at the blocks' own pixels, within
// what the frames' timing and JPEG can blur.
func TestPaintMetricsOfAKnownPage(t *testing.T) {
	requireChromium(t)
	base := servePaintPages(t)
	var frames []rawFrame
	var toMs func(float64) float64
	frameHook = func(raw []rawFrame, clock func(float64) float64) { frames, toMs = raw, clock }
	t.Cleanup(func() { frameHook = nil })
	res, err := Load(context.Background(), Options{URL: base + "/blocks", SpeedIndex: true, Settle: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Paint
	if p == nil || p.FCPms == nil || p.LCPms == nil || p.SpeedIndexMs == nil {
		t.Fatalf("paint %+v: want FCP, LCP and Speed Index", p)
	}
	fcp, lcp, si := *p.FCPms, *p.LCPms, *p.SpeedIndexMs
	t.Logf("FCP %.1f ms, LCP %.1f ms (%s %s), Speed Index %.1f ms over %d frames; PLT %.1f ms", fcp, lcp, p.LCPElement, p.LCPURL, si, p.Frames, res.PLTms)
	// Nothing shows before the first image: the server holds it back.
	if fcp < ms(knownBlocks[0].delay) {
		t.Errorf("FCP %.1f ms, before the first block could arrive (%v)", fcp, knownBlocks[0].delay)
	}
	if last := knownBlocks[len(knownBlocks)-1]; lcp < ms(last.delay) || lcp < fcp {
		t.Errorf("LCP %.1f ms: want after the largest block's delay %v and after FCP %.1f", lcp, last.delay, fcp)
	}
	if !strings.HasSuffix(p.LCPURL, fmt.Sprintf("/b%d.png", len(knownBlocks)-1)) || p.LCPElement != "IMG" {
		t.Errorf("LCP element %s %q: want the largest block's image", p.LCPElement, p.LCPURL)
	}
	// Each block's area weighs the time it first shows, and it cannot
	// show before its delay: the Speed Index's lower bound.
	total, bound := 0.0, 0.0
	for _, b := range knownBlocks {
		total += float64(b.w * b.h)
	}
	for _, b := range knownBlocks {
		bound += float64(b.w*b.h) / total * ms(b.delay)
	}
	if si < bound {
		t.Errorf("Speed Index %.1f ms, below the construction's bound %.1f ms", si, bound)
	}
	want, tol := pixelSpeedIndex(t, frames, toMs, si)
	t.Logf("the blocks' pixels give %.1f ms (tolerance %.1f ms)", want, tol)
	if math.Abs(si-want) > tol {
		t.Errorf("Speed Index %.1f ms; the blocks' pixels in the same frames give %.1f ms (tolerance %.1f ms)", si, want, tol)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// pixelSpeedIndex is the Speed Index of the same frames with each frame's
// progress read from the blocks' own places (the dark share of each
// block's pixels, weighed by its area), unlike the histogram method, which
// ignores where pixels are. The tolerance is what the frames' scale and
// JPEG can blur: the blocks' edge pixels (a pixel's width around each
// block at the frame's scale) and a percent of JPEG noise, times the
// Speed Index.
func pixelSpeedIndex(t *testing.T, raw []rawFrame, toMs func(float64) float64, si float64) (want, tol float64) {
	t.Helper()
	if len(raw) == 0 {
		t.Fatal("no frames kept")
	}
	raw = append([]rawFrame(nil), raw...)
	sort.SliceStable(raw, func(i, j int) bool { return raw[i].wall < raw[j].wall })
	total := 0.0
	for _, b := range knownBlocks {
		total += float64(b.w * b.h)
	}
	frames := make([]visualFrame, len(raw))
	vc := make([]float64, len(raw))
	var edge float64
	for i, r := range raw {
		img, err := jpeg.Decode(bytes.NewReader(r.jpeg))
		if err != nil {
			t.Fatal(err)
		}
		sx := float64(img.Bounds().Dx()) / 1280
		sy := sx // frames keep the viewport's aspect
		edge = 0
		for _, b := range knownBlocks {
			x0, x1 := int(float64(b.x)*sx), int(float64(b.x+b.w)*sx)
			y0, y1 := int(float64(b.y)*sy), int(float64(b.y+b.h)*sy)
			dark, n := 0, 0
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					n++
					if color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y < 128 {
						dark++
					}
				}
			}
			share := float64(b.w*b.h) / total
			vc[i] += share * float64(dark) / float64(n)
			edge += share * float64(2*(x1-x0)+2*(y1-y0)) / float64(n)
		}
		frames[i].ms = toMs(r.wall)
	}
	return speedIndexOf(frames, vc), (edge + 0.01) * si
}

// TestPaintAbsentOnAnEmptyPage: a page that paints nothing stores no FCP
// or LCP, and says why.
func TestPaintAbsentOnAnEmptyPage(t *testing.T) {
	requireChromium(t)
	base := servePaintPages(t)
	res, err := Load(context.Background(), Options{URL: base + "/empty", Settle: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Paint
	if p == nil || p.FCPms != nil || p.LCPms != nil || p.SpeedIndexMs != nil {
		t.Fatalf("paint %+v: want a paint record without metrics", p)
	}
	if !strings.Contains(p.Absent, "no FCP: the page painted nothing: its body holds no text or image") {
		t.Errorf("absent %q: want the reason", p.Absent)
	}
	if strings.Contains(string(res.HAR), "_firstContentfulPaint") {
		t.Error("the HAR has an FCP for a page that painted nothing")
	}
}

// TestPaintAbsentBehindABlockedStylesheet: a stylesheet that never
// arrives holds the page's every paint and its load, which fails; the
// failed load says that the page painted nothing and why.
func TestPaintAbsentBehindABlockedStylesheet(t *testing.T) {
	requireChromium(t)
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<!doctype html><html><head><link rel="stylesheet" href="/never.css"></head><body><p>text held back</p></body></html>`))
	})
	mux.HandleFunc("/never.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { close(release); srv.Close() })
	res, err := Load(context.Background(), Options{URL: "http://" + ln.Addr().String() + "/", Timeout: 3 * time.Second})
	if err == nil {
		t.Fatal("a load whose stylesheet never arrived succeeded")
	}
	if res.Paint == nil || res.Paint.FCPms != nil || !strings.Contains(res.Paint.Absent, "1 render-blocking stylesheet(s) never loaded") {
		t.Fatalf("paint %+v: want none, naming the stylesheet that never loaded", res.Paint)
	}
}
