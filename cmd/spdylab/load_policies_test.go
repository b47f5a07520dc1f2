package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/report"
)

// `spdylab load` sets the TLS options and priority policies by flag; the
// summaries' conditions carry them and show the handshakes' round trips.
func TestLoadCommandPolicyFlags(t *testing.T) {
	var out, errb bytes.Buffer
	code := runLoad(context.Background(), []string{"--no-link", "--runs", "2", "--json", "--page", "pageC", "--shards", "2",
		"--proto", "https", "--tls", "1.3", "--tls-resume", "--priority", "depth", "--scheduler", "fifo", "--work-dir", t.TempDir()}, &out, &errb)
	if code != 2 {
		t.Fatalf("fifo with https alone: exit %d:\n%s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "scheduler has no effect on https") || !strings.Contains(errb.String(), "spdy/3.1") {
		t.Errorf("stderr %q does not say that the scheduler has no effect on https, and where it has", errb.String())
	}
	out.Reset()
	errb.Reset()
	code = runLoad(context.Background(), []string{"--no-link", "--runs", "2", "--json", "--page", "pageC", "--shards", "2",
		"--proto", "spdy/3.1", "--tls", "1.3", "--tls-resume", "--priority", "depth", "--scheduler", "fifo", "--work-dir", t.TempDir()}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errb.String())
	}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var s report.LoadSummary
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("not a summary: %q", sc.Text())
		}
		c := s.Condition
		if !c.TLSResume || c.Priority != probe.PriorityDepth || c.Scheduler != probe.SchedulerFIFO || s.Failed != 0 {
			t.Errorf("summary %s: condition %+v, %d failed", s.Proto, c, s.Failed)
		}
		if s.TLS.Full != 2 || s.TLS.RoundTrips != 2 {
			t.Errorf("%s over two hosts: TLS %+v, want two full handshakes of one round trip", s.Proto, s.TLS)
		}
	}
}

func TestLoadCommandRejectsBadPolicyFlags(t *testing.T) {
	for label, c := range map[string]struct {
		args []string
		want string
	}{
		"priority":        {[]string{"--priority", "fair"}, `--priority "fair": must be one of`},
		"scheduler":       {[]string{"--scheduler", "lifo"}, `--scheduler "lifo": must be one of`},
		"scheduler h2":    {[]string{"--proto", "h2", "--scheduler", "roundrobin"}, "net/http"},
		"early over 1.2":  {[]string{"--proto", "h3", "--tls-resume", "--early-data"}, "needs tls 1.3"},
		"early no ticket": {[]string{"--proto", "h3", "--tls", "1.3", "--early-data"}, "needs tls_resume"},
		"early over h2":   {[]string{"--proto", "h2", "--tls", "1.3", "--tls-resume", "--early-data"}, "today h3"},
		"resume plain":    {[]string{"--proto", "spdy/3.1", "--tls", "none", "--tls-resume"}, "no handshake to resume"},
		"empty proto":     {[]string{"--proto", "spdy/3.1,"}, "no protocol given"},
		"sessions 7":      {[]string{"--sessions", "7"}, "--sessions"},
		"sessions h3":     {[]string{"--proto", "h3", "--tls", "1.3", "--sessions", "2"}, "sessions has no effect on h3"},
		"sessions https":  {[]string{"--proto", "https", "--sessions", "3"}, "sessions has no effect on https"},
		"frame size h2":   {[]string{"--proto", "h2,https", "--frame-size", "4096"}, "frame_size has no effect on h2, https: it applies to spdy/3.1"},
		"hints https":     {[]string{"--proto", "https", "--hints", "deps"}, "X-Associated-Content"},
		"window spdy/3":   {[]string{"--proto", "spdy/3", "--session-window", "1048576"}, "session_window has no effect on spdy/3"},
		"pacing h3":       {[]string{"--proto", "h3", "--tls", "1.3", "--pacing", "on"}, "TCP socket option"},
		"lowat h3":        {[]string{"--proto", "h3", "--tls", "1.3", "--notsent-lowat", "16384"}, "notsent_lowat has no effect on h3"},
		"sessions chrome": {[]string{"--proto", "h2", "--client", "chromium", "--tls", "1.3", "--sessions", "2"}, "pools one SPDY/h2 session per host"},
		"policy alone":    {[]string{"--session-policy", "priority"}, "needs sessions > 1"},
	} {
		var out, errb bytes.Buffer
		code := runLoad(context.Background(), append([]string{"--no-link"}, c.args...), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", label, code, errb.String(), c.want)
		}
	}
}

// Beside a protocol that takes a knob, another protocol of the load
// ignores it, and the load says so before its summaries.
func TestLoadCommandIgnoredKnobs(t *testing.T) {
	var out, errb bytes.Buffer
	code := runLoad(context.Background(), []string{"--no-link", "--runs", "1", "--page", "pageC",
		"--proto", "spdy/3.1,https", "--frame-size", "4096", "--work-dir", t.TempDir()}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errb.String())
	}
	if !strings.Contains(out.String(), "https ignores frame_size") || strings.Contains(out.String(), "spdy/3.1 ignores") {
		t.Errorf("output does not say that https alone ignores frame_size:\n%s", out.String())
	}
	out.Reset()
	code = runLoad(context.Background(), []string{"--no-link", "--runs", "1", "--page", "pageC", "--json",
		"--proto", "spdy/3.1,https", "--frame-size", "4096", "--work-dir", t.TempDir()}, &out, &errb)
	if code != 0 {
		t.Fatalf("--json: exit %d:\n%s", code, errb.String())
	}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var s report.LoadSummary
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("not a summary: %q", sc.Text())
		}
		want := s.Proto == "https"
		if ignores := strings.Join(s.Ignored, " ") == "frame_size"; ignores != want || s.Condition.FrameSize != 4096 || s.Failed != 0 {
			t.Errorf("%s summary: ignored %v, frame_size %d, %d failed", s.Proto, s.Ignored, s.Condition.FrameSize, s.Failed)
		}
	}
}
