package browser

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"sort"
)

// Speed Index from the load's frames. A frame's visual completeness is how
// far its colour histograms have come from the blank page's towards the
// last frame's: 1 - d(frame, last) / d(blank, last), with d the sum over the
// red, green and blue channels of the absolute differences of pixel counts
// per level, clamped to [0, 1]. Histograms ignore where pixels are, so an
// element that moves without changing counts as done (as WebPageTest's
// histogram method does). The blank page is white: what Chromium shows
// before the document paints. Speed Index is the area above the
// completeness curve: the sum over the time from the PLT's origin to the
// last frame of (1 - completeness of the frame on screen) dt, with nothing
// on screen (completeness 0) before the first frame.

// histogram counts a frame's pixels per level of each channel.
type histogram [3][256]int

// histogramOf builds img's histogram (8-bit levels).
func histogramOf(img image.Image) histogram {
	var h histogram
	if yc, ok := img.(*image.YCbCr); ok {
		// What JPEG decodes to: read the planes directly, not through
		// the image.Image interface a pixel at a time.
		b := yc.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				yi, ci := yc.YOffset(x, y), yc.COffset(x, y)
				r, g, bl := color.YCbCrToRGB(yc.Y[yi], yc.Cb[ci], yc.Cr[ci])
				h[0][r]++
				h[1][g]++
				h[2][bl]++
			}
		}
		return h
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			h[0][r>>8]++
			h[1][g>>8]++
			h[2][bl>>8]++
		}
	}
	return h
}

// whiteHistogram is the blank page's histogram at n pixels.
func whiteHistogram(n int) histogram {
	var h histogram
	for c := range h {
		h[c][255] = n
	}
	return h
}

func (h *histogram) distance(o *histogram) int {
	d := 0
	for c := range h {
		for l := range h[c] {
			d += abs(h[c][l] - o[c][l])
		}
	}
	return d
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// visualFrame is one frame's time (ms on the PLT's clock) and histogram.
type visualFrame struct {
	ms   float64
	hist histogram
}

// completeness is each frame's visual completeness against the last
// frame, from a blank page of pixels pixels. ok is false when the last
// frame looks like the blank page (nothing visible was painted).
func completeness(frames []visualFrame, pixels int) (vc []float64, ok bool) {
	if len(frames) == 0 {
		return nil, false
	}
	last := &frames[len(frames)-1].hist
	blank := whiteHistogram(pixels)
	total := blank.distance(last)
	if total == 0 {
		return nil, false
	}
	vc = make([]float64, len(frames))
	for i := range frames {
		v := 1 - float64(frames[i].hist.distance(last))/float64(total)
		vc[i] = math.Max(0, math.Min(1, v))
	}
	return vc, true
}

// speedIndexOf is the Speed Index (ms) of frames in time order whose
// completeness is vc: frames before the PLT's origin count from it.
func speedIndexOf(frames []visualFrame, vc []float64) float64 {
	si, prevT, prevVC := 0.0, 0.0, 0.0
	for i, f := range frames {
		t := math.Max(f.ms, 0)
		if t > prevT {
			si += (1 - prevVC) * (t - prevT)
			prevT = t
		}
		prevVC = vc[i]
	}
	return si
}

// maxFramePixels bounds a screencast frame: the lab asks for frames of half
// its viewport (screencastParams), far below this; a larger header is
// refused before the decoder allocates for it.
const maxFramePixels = 4096 * 4096

// speedIndex decodes the load's frames (wall times converted to the PLT's
// clock by toMs) and returns the Speed Index, or why there is none.
func speedIndex(raw []rawFrame, toMs func(wall float64) float64) (float64, error) {
	if len(raw) == 0 {
		return 0, fmt.Errorf("Chromium sent no screencast frame")
	}
	frames := make([]visualFrame, 0, len(raw))
	pixels := -1
	for i, r := range raw {
		// The header first: a frame whose header claims a huge image would
		// make the decoder allocate for it (a decompression bomb).
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(r.jpeg))
		if err != nil {
			return 0, fmt.Errorf("screencast frame %d: %v", i, err)
		}
		if cfg.Width*cfg.Height > maxFramePixels {
			return 0, fmt.Errorf("screencast frame %d is %dx%d, over the %d pixels a frame of the lab's viewport can have", i, cfg.Width, cfg.Height, maxFramePixels)
		}
		img, err := jpeg.Decode(bytes.NewReader(r.jpeg))
		if err != nil {
			return 0, fmt.Errorf("screencast frame %d: %v", i, err)
		}
		n := img.Bounds().Dx() * img.Bounds().Dy()
		if pixels >= 0 && n != pixels {
			return 0, fmt.Errorf("screencast frame %d is %dx%d, unlike the frames before it", i, img.Bounds().Dx(), img.Bounds().Dy())
		}
		pixels = n
		frames = append(frames, visualFrame{toMs(r.wall), histogramOf(img)})
	}
	sort.SliceStable(frames, func(i, j int) bool { return frames[i].ms < frames[j].ms })
	vc, ok := completeness(frames, pixels)
	if !ok {
		return 0, fmt.Errorf("the last frame looks like the blank page: nothing visible was painted")
	}
	return speedIndexOf(frames, vc), nil
}
