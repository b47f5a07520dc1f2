package report

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Chromium is the headless browser Screenshot uses.
var Chromium = "/usr/lib/chromium/chromium"

// Screenshot renders an HTML file with headless Chromium into a PNG
// (1280 px wide, 4000 px tall). profileDir is a scratch browser profile.
func Screenshot(htmlPath, pngPath, profileDir string) error {
	abs, err := filepath.Abs(htmlPath)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, Chromium, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--no-first-run", "--disable-dev-shm-usage",
		"--user-data-dir="+profileDir, "--window-size=1280,4000", "--hide-scrollbars",
		"--screenshot="+pngPath, "file://"+abs)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("chromium: %v: %s", err, out)
	}
	if fi, err := os.Stat(pngPath); err != nil || fi.Size() == 0 {
		return fmt.Errorf("chromium wrote no screenshot to %s: %s", pngPath, out)
	}
	return nil
}
