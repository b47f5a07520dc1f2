package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// load -h fits a screen: synopsis, examples, the page forms and the common
// flags one line each (generated from their full help), pointing to
// --help-all, which shows every flag in full.
func TestLoadShortHelp(t *testing.T) {
	var short, full bytes.Buffer
	if code := runLoad(context.Background(), []string{"-h"}, &short, &short); code != 0 {
		t.Fatalf("load -h: exit %d", code)
	}
	if code := runLoad(context.Background(), []string{"--help-all"}, &full, &full); code != 0 {
		t.Fatalf("load --help-all: exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(short.String()), "\n")
	if len(lines) > 50 || len(lines)*3 > len(strings.Split(full.String(), "\n")) {
		t.Errorf("load -h is %d lines, --help-all %d", len(lines), len(strings.Split(full.String(), "\n")))
	}
	_, common, ok := strings.Cut(short.String(), "\ncommon flags (every flag with its full help: spdylab load --help-all):\n")
	if !ok || !strings.Contains(short.String(), "har:FILE.har") {
		t.Fatalf("load -h has no common flags pointing to --help-all, or no page forms:\n%s", short.String())
	}
	rows := strings.Split(strings.TrimRight(common, "\n"), "\n")
	if len(rows) != len(loadCommonFlags) {
		t.Errorf("%d common flag lines, want %d:\n%s", len(rows), len(loadCommonFlags), common)
	}
	for i, row := range rows {
		if i < len(loadCommonFlags) && !strings.HasPrefix(row, "  --"+loadCommonFlags[i]+" ") || len(row) > shortHelpWidth {
			t.Errorf("common flag line %q: want --%s on one line of at most %d columns", row, loadCommonFlags[min(i, len(loadCommonFlags)-1)], shortHelpWidth)
		}
	}
	for _, want := range []string{"  --proto string      https, spdy/3.1, spdy/3, spdy/2, h2, h3 or spdy/3.1+sctp (default spdy/3.1)",
		"  --rtt string        round-trip time added by the link, split evenly between the directions, e.g. 100ms"} {
		if !strings.Contains(short.String(), want+"\n") {
			t.Errorf("load -h lacks the line %q", want)
		}
	}
	if !strings.Contains(full.String(), "\nserver knobs:\n") || strings.Contains(full.String(), "common flags") || strings.Contains(full.String(), "--help-all") {
		t.Errorf("--help-all is not the full help:\n%s", firstLines(full.String(), 30))
	}
}

// The one-line help keeps a flag's first clause and its default, and cuts
// at a word what is still too long.
func TestOneLineHelp(t *testing.T) {
	for _, c := range []struct {
		usage string
		n     int
		want  string
	}{
		{"per-load timeout (0 = 60s)", 80, "per-load timeout (0 = 60s)"},
		{"no emulated link: servers on 127.0.0.x in the caller's namespace (smoke tests; no root needed)", 80, "no emulated link: servers on 127.0.0.x in the caller's namespace"},
		{"random packet loss probability, e.g. \"1%\" or \"0.01\" (default 0%)", 80, "random packet loss probability, e.g. \"1%\" or \"0.01\" (default 0%)"},
		{"the page's dependencies: recorded, or flat. Flat requests every resource at once (default recorded)", 80, "the page's dependencies: recorded, or flat (default recorded)"},
		{"a very long first clause that goes on and on without any separator at all until the end", 40, "a very long first clause that goes..."},
	} {
		if got := oneLine(c.usage, c.n); got != c.want {
			t.Errorf("oneLine(%q, %d) = %q, want %q", c.usage, c.n, got, c.want)
		}
	}
}
