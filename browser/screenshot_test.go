package browser

import (
	"bytes"
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
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(b)); err != nil || cfg.Width != 1280 {
		t.Errorf("screenshot: %+v, %v; want a PNG 1280 px wide", cfg, err)
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
