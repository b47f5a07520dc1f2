package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/internal/tcpopt"
	"github.com/spdylab/spdylab/probe"
)

// serve's server knobs reach the server's configuration; values serve
// cannot honour are refused naming the flag.
func TestServeServerKnobFlags(t *testing.T) {
	var errOut bytes.Buffer
	cfg, _, _, _, status := parseServeFlags([]string{"--pacing", "8mbit", "--hints", "deps", "--push", "deps", "--frame-size", "4096", "--notsent-lowat", "16384"}, &errOut)
	if status >= 0 {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	if cfg.PacingRate != 1e6 || cfg.Hints != probe.HintsDeps || cfg.Push != probe.PushDeps || cfg.SPDY.MaxFrameSize != 4096 || cfg.NotSentLowat != 16384 {
		t.Errorf("config %+v", cfg)
	}
	if cfg, _, _, _, _ := parseServeFlags([]string{"--pacing", "on"}, &errOut); cfg.PacingRate != tcpopt.PacingUncapped {
		t.Errorf("--pacing on: rate %d, want uncapped", cfg.PacingRate)
	}
	for _, bad := range [][]string{{"--pacing", "link"}, {"--pacing", "fast"}} {
		errOut.Reset()
		if _, _, _, _, status := parseServeFlags(bad, &errOut); status != 2 || !strings.Contains(errOut.String(), "--pacing") {
			t.Errorf("%q: status %d, %q; want a usage error naming --pacing", bad, status, errOut.String())
		}
	}
}
