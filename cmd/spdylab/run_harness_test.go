package main

import (
	"testing"

	"github.com/spdylab/spdylab/browser"
)

// A run's provenance names the Chromium its benches would start.
func TestBenchToolsNameChromium(t *testing.T) {
	bin, err := browser.FindBinary("")
	tools := benchTools()
	if err != nil {
		if _, ok := tools["chromium"]; ok {
			t.Fatalf("no Chromium here (%v), yet benchTools names one: %v", err, tools["chromium"])
		}
		t.Skipf("no Chromium: %v", err)
	}
	if got := tools["chromium"]; len(got) == 0 || got[0] != bin {
		t.Fatalf("benchTools chromium = %v, want %s --version", got, bin)
	}
}
