package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadProfile: --profile puts the profile's settings and label into
// the loaded condition, and refuses a protocol it does not configure.
func TestLoadProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "p.toml")
	src := "name = \"t1\"\nprotocols = [\"spdy/3.1\"]\n[settings]\ninitial_window = 1048576\nscheduler = \"roundrobin\"\n"
	if err := os.WriteFile(prof, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := runLoad(context.Background(), []string{"--no-link", "--runs", "1", "--json", "--page", "pageC", "--profile", prof, "--work-dir", dir}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var sum struct {
		Condition struct {
			InitialWindow int    `json:"initial_window"`
			Scheduler     string `json:"scheduler"`
			Profile       string `json:"profile"`
		} `json:"condition"`
	}
	if err := json.Unmarshal(bytes.SplitN(out.Bytes(), []byte("\n"), 2)[0], &sum); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	c := sum.Condition
	if c.InitialWindow != 1048576 || c.Scheduler != "roundrobin" || !strings.HasPrefix(c.Profile, "t1@") {
		t.Errorf("loaded condition %+v, want the profile's settings and label", c)
	}
	for _, args := range [][]string{
		{"--proto", "https"},
		{"--profile-typo"},
	} {
		errb.Reset()
		code := runLoad(context.Background(), append([]string{"--no-link", "--profile", prof}, args...), &out, &errb)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errb.String())
		}
	}
	errb.Reset()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("name = \"b\"\nprotocols = [\"spdy/3.1\"]\n[settings]\nrtt = \"10ms\"\n"), 0o644)
	if code := runLoad(context.Background(), []string{"--no-link", "--profile", bad}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "emulated link") {
		t.Errorf("a profile setting the link: exit %d, %s", code, errb.String())
	}
}
