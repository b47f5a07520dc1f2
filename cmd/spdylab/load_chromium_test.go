package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/browser"
	"github.com/spdylab/spdylab/internal/testutil"
)

// TestLoadChromiumOverEmulatedLink runs `spdylab load --client chromium
// --proto https,h2` through an emulated link: real Chromium in the client
// namespace, the lab's servers capped at TLS 1.2 (Chromium's own side
// cannot be), the lab certificate trusted by key; with --speed-index each
// summary and HAR carries the paint metrics.
func TestLoadChromiumOverEmulatedLink(t *testing.T) {
	testutil.RequireRoot(t)
	if _, err := browser.FindBinary(""); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	har := t.TempDir()
	var out, stderr bytes.Buffer
	code := runLoad(context.Background(), []string{"--client", "chromium", "--proto", "https,h2",
		"--tls", "1.2", "--runs", "1", "--json", "--speed-index", "--page", "pageC", "--shards", "2",
		"--rtt", "20ms", "--down", "10mbit", "--up", "1mbit", "--work-dir", t.TempDir(), "--har", har}, &out, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	var protos []string
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var s struct {
			Proto     string  `json:"proto"`
			Runs      int     `json:"runs"`
			Failed    int     `json:"failed"`
			PLT       float64 `json:"plt_median_ms"`
			Condition struct {
				Client string `json:"client"`
			} `json:"condition"`
			Paint *struct {
				Metrics map[string]struct {
					Median *float64 `json:"median_ms"`
				} `json:"metrics"`
			} `json:"paint"`
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("output line is not JSON: %q", sc.Text())
		}
		if s.Runs != 1 || s.Failed != 0 || s.PLT <= 0 || s.Condition.Client != "chromium" {
			t.Fatalf("summary %+v (stderr: %s)", s, stderr.String())
		}
		if s.Paint == nil || s.Paint.Metrics["fcp_ms"].Median == nil || s.Paint.Metrics["speed_index_ms"].Median == nil {
			t.Errorf("%s: paint %+v: want FCP and Speed Index medians", s.Proto, s.Paint)
		}
		protos = append(protos, s.Proto)
	}
	if strings.Join(protos, ",") != "https,h2" {
		t.Fatalf("summaries for %v, want https then h2", protos)
	}
	// The HARs are Chromium's: each names the protocol it spoke.
	for proto, alpn := range map[string]string{"https": "http/1.1", "h2": "h2"} {
		files, _ := filepath.Glob(filepath.Join(har, "*-"+proto+"-run001.har"))
		if len(files) != 1 {
			t.Fatalf("%s: HAR files %v", proto, files)
		}
		b, _ := os.ReadFile(files[0])
		var doc struct {
			Log struct {
				Pages []struct {
					PageTimings struct {
						FCP *float64 `json:"_firstContentfulPaint"`
						SI  *float64 `json:"_speedIndex"`
					} `json:"pageTimings"`
				} `json:"pages"`
				Entries []struct {
					Protocol string `json:"_protocol"`
				} `json:"entries"`
			} `json:"log"`
		}
		if err := json.Unmarshal(b, &doc); err != nil || len(doc.Log.Entries) == 0 {
			t.Fatalf("%s HAR: %v", proto, err)
		}
		if len(doc.Log.Pages) != 1 || doc.Log.Pages[0].PageTimings.FCP == nil || doc.Log.Pages[0].PageTimings.SI == nil {
			t.Errorf("%s HAR: pages %+v: want FCP and Speed Index in pageTimings", proto, doc.Log.Pages)
		}
		if got := doc.Log.Entries[0].Protocol; got != alpn {
			t.Errorf("%s: document fetched over %q, want %q", proto, got, alpn)
		}
	}
}

func TestLoadChromiumRefusesSPDYNamingTheReason(t *testing.T) {
	var stderr bytes.Buffer
	code := runLoad(context.Background(), []string{"--client", "chromium", "--proto", "h2,spdy/3.1", "--no-link"}, &bytes.Buffer{}, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "removed SPDY") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}
