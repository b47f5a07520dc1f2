package main

import (
	"io"
	"testing"

	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/studyfile"
)

func TestRunsAutoFlags(t *testing.T) {
	apply := func(args ...string) (*spec.Study, error) {
		t.Helper()
		f, code := parseRunFlags(args, io.Discard)
		if code >= 0 {
			t.Fatalf("%q: exit %d", args, code)
		}
		s, err := studyfile.Load("quick")
		if err != nil {
			t.Fatal(err)
		}
		return s, f.runs.apply(s)
	}
	s, err := apply("--runs", "auto", "--runs-target", "10%", "--runs-max", "20")
	if err != nil || s.RunsAuto == nil || *s.RunsAuto != (spec.AutoRuns{Target: 0.1, Min: 5, Max: 20}) {
		t.Errorf("--runs auto --runs-target 10%% --runs-max 20: %+v, %v", s.RunsAuto, err)
	}
	if s, err := apply("--runs", "7"); err != nil || s.RunsAuto != nil || s.Runs != 5 {
		// Override (not apply) sets Runs; apply leaves fixed runs fixed.
		t.Errorf("--runs 7: %+v, %v", s.RunsAuto, err)
	}
	if _, err := apply("--runs-target", "5%"); err == nil {
		t.Error("--runs-target without --runs auto accepted")
	}
	if _, err := apply("--runs", "auto", "--runs-max", "3"); err == nil {
		t.Error("a cap below the minimum accepted")
	}
	if _, code := parseRunFlags([]string{"--runs", "sometimes"}, io.Discard); code != 2 {
		t.Errorf("--runs sometimes: exit %d, want 2", code)
	}
}
