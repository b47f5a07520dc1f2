package main

import (
	"bytes"
	"testing"

	"github.com/spdylab/spdylab/probe"
)

// h3 loads at TLS 1.3 whatever the default: Chromium takes --proto h3
// (beside h2, at the condition's 1.2) without --tls 1.3, and the stored
// condition keeps the default, so its hash is the one stored before.
func TestLoadChromiumH3UnderTheDefaultTLS(t *testing.T) {
	var errb bytes.Buffer
	req, status := parseLoadFlags([]string{"--no-link", "--client", "chromium", "--proto", "h3,h2"}, &errb)
	if status != -1 {
		t.Fatalf("load --client chromium --proto h3,h2: status %d: %s", status, errb.String())
	}
	if req.cond.TLS != probe.DefaultTLS {
		t.Errorf("stored tls %q, want the default %q", req.cond.TLS, probe.DefaultTLS)
	}
}
