package browser

import (
	"image"
	"image/color"
	"math"
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
