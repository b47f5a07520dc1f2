package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Screenshot renders an HTML file with headless Chromium (FindBinary's
// choice) into a PNG 1280 px wide and 4000 px tall, using a throw-away
// profile that it removes afterwards.
func Screenshot(htmlPath, pngPath string) error {
	bin, err := FindBinary("")
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(htmlPath)
	if err != nil {
		return err
	}
	profile, err := os.MkdirTemp("", profilePrefix)
	if err != nil {
		return fmt.Errorf("browser: profile: %w", err)
	}
	defer removeProfile(profile)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--no-first-run", "--disable-dev-shm-usage",
		"--user-data-dir="+profile, "--window-size=1280,4000", "--hide-scrollbars",
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
