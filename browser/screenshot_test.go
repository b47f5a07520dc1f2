package browser

import (
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestScreenshot renders a small page into a PNG of the promised width.
// (report's TestScreenshot checks that report.html renders non-blank.)
func TestScreenshot(t *testing.T) {
	if _, err := FindBinary(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	html := filepath.Join(dir, "page.html")
	if err := os.WriteFile(html, []byte(`<html><body style="background:#000"><h1>spdylab</h1></body></html>`), 0o600); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	if err := Screenshot(html, shot); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if w := img.Bounds().Dx(); w != 1280 {
		t.Errorf("screenshot %d px wide, want 1280", w)
	}
}

// TestScreenshotNoChromium: a missing $SPDYLAB_CHROMIUM is ErrNoChromium,
// not a run of some other browser.
func TestScreenshotNoChromium(t *testing.T) {
	t.Setenv("SPDYLAB_CHROMIUM", filepath.Join(t.TempDir(), "no-such-chromium"))
	dir := t.TempDir()
	err := Screenshot(filepath.Join(dir, "page.html"), filepath.Join(dir, "shot.png"))
	if !errors.Is(err, ErrNoChromium) {
		t.Fatalf("err = %v, want ErrNoChromium", err)
	}
}
