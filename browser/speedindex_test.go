package browser

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"strings"
	"testing"
)

// frameOf is a w x h white frame with its first dark columns black.
func frameOf(w, h, dark int) histogram {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{255, 255, 255, 255}
			if x < dark {
				c = color.RGBA{0, 0, 0, 255}
			}
			img.Set(x, y, c)
		}
	}
	return histogramOf(img)
}

// TestSpeedIndexOfKnownProgress: a quarter of the final picture at 100 ms,
// all of it at 300 ms gives 100 + 0.75 * 200 = 250 ms; frames before the
// origin count from it; a final frame like the blank page gives none.
func TestSpeedIndexOfKnownProgress(t *testing.T) {
	frames := []visualFrame{{-20, frameOf(40, 10, 0)}, {100, frameOf(40, 10, 10)}, {300, frameOf(40, 10, 40)}}
	vc, ok := completeness(frames, 400)
	if !ok {
		t.Fatal("completeness refused a page that painted")
	}
	if want := []float64{0, 0.25, 1}; vc[0] != want[0] || math.Abs(vc[1]-want[1]) > 1e-9 || vc[2] != want[2] {
		t.Errorf("completeness %v, want %v", vc, want)
	}
	if si := speedIndexOf(frames, vc); math.Abs(si-250) > 1e-9 {
		t.Errorf("Speed Index %v, want 250", si)
	}
	if _, ok := completeness([]visualFrame{{50, frameOf(40, 10, 0)}}, 400); ok {
		t.Error("a blank last frame gave a completeness")
	}
}

// A JPEG's planes read directly give the histogram the generic path gives.
func TestHistogramOfYCbCrMatchesGeneric(t *testing.T) {
	img := image.NewYCbCr(image.Rect(0, 0, 7, 5), image.YCbCrSubsampleRatio420)
	for i := range img.Y {
		img.Y[i] = uint8(i * 37)
	}
	for i := range img.Cb {
		img.Cb[i], img.Cr[i] = uint8(i*53), uint8(200-i*11)
	}
	generic := image.NewRGBA(img.Bounds())
	for y := 0; y < 5; y++ {
		for x := 0; x < 7; x++ {
			generic.Set(x, y, img.At(x, y))
		}
	}
	if histogramOf(img) != histogramOf(generic) {
		t.Error("the YCbCr fast path's histogram differs from the generic one")
	}
}

// FuzzScreencastFrames feeds Chromium's screencast events and their images
// (outside input) through the frame decoder and the Speed Index: errors
// are fine, panics are not, and a Speed Index is never negative.
func FuzzScreencastFrames(f *testing.F) {
	var white bytes.Buffer
	jpeg.Encode(&white, image.NewGray(image.Rect(0, 0, 4, 4)), nil)
	f.Add([]byte(`{"data":"`+base64.StdEncoding.EncodeToString(white.Bytes())+`","metadata":{"timestamp":1.5},"sessionId":3}`), white.Bytes(), 2.0)
	f.Add([]byte(`{"data":"!!","metadata":{"timestamp":-1}}`), []byte{0xff, 0xd8}, 0.0)
	f.Fuzz(func(t *testing.T, params, img []byte, wall float64) {
		sc := &screencast{}
		sc.handle(cdpEvent{Method: "Page.screencastFrame", Params: params})
		raw, _ := sc.take()
		raw = append(raw, rawFrame{img, wall})
		si, err := speedIndex(raw, func(w float64) float64 { return w * 1000 })
		if err == nil && (si < 0 || math.IsNaN(si)) {
			t.Fatalf("Speed Index %v", si)
		}
	})
}

// FuzzPaintSeen decodes what the page's script answers (outside input)
// into paint metrics: never a panic, never a metric beside its reason.
func FuzzPaintSeen(f *testing.F) {
	f.Add([]byte(`{"fcp":120.5,"lcp":300,"lcpURL":"https://a/b.png","lcpTag":"IMG","requestStart":3.2,"readyState":"complete","bodyText":10,"images":1,"sheetsPending":0}`), 1.5)
	f.Add([]byte(`{"fcp":-1,"lcp":-1,"requestStart":0}`), -1.0)
	f.Fuzz(func(t *testing.T, b []byte, sendStart float64) {
		var seen paintSeen
		if json.Unmarshal(b, &seen) != nil {
			return
		}
		p := paintOf(&seen, "", sendStart)
		if p.FCPms == nil && !strings.Contains(p.Absent, "FCP") {
			t.Fatalf("no FCP and no reason: %+v", p)
		}
		unfinishedPaint(&seen)
	})
}

// A load that sends more frames than a load keeps gets no Speed Index,
// with the reason, and holds no frames.
func TestTooManyFramesAreRefused(t *testing.T) {
	sc := &screencast{}
	ev := cdpEvent{Method: "Page.screencastFrame", Params: []byte(`{"data":"AA==","metadata":{"timestamp":1},"sessionId":1}`)}
	for range maxFrames + 1 {
		if sc.handle(ev) != 1 {
			t.Fatal("a frame went unacknowledged")
		}
	}
	raw, err := sc.take()
	if err == nil || !strings.Contains(err.Error(), "more than") || len(raw) != 0 {
		t.Errorf("%d frames kept, error %v", len(raw), err)
	}
}

// A frame whose header claims a huge image is refused from its header,
// before the decoder allocates for it.
func TestScreencastFrameBombRefused(t *testing.T) {
	var small bytes.Buffer
	jpeg.Encode(&small, image.NewGray(image.Rect(0, 0, 4, 4)), nil)
	b := small.Bytes()
	// The SOF0 segment (FF C0, length, precision) holds height and width.
	i := bytes.Index(b, []byte{0xff, 0xc0})
	if i < 0 {
		t.Fatal("no SOF0 in the encoded frame")
	}
	bomb := append([]byte(nil), b...)
	bomb[i+5], bomb[i+6], bomb[i+7], bomb[i+8] = 0xff, 0xff, 0xff, 0xff // 65535 x 65535
	_, err := speedIndex([]rawFrame{{bomb, 1}}, func(w float64) float64 { return w })
	if err == nil || !strings.Contains(err.Error(), "65535x65535") {
		t.Errorf("a 65535x65535 frame: %v, want it refused naming its size", err)
	}
}
