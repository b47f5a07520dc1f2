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
		{"--proto", "https"}, // a profile that configures none of them
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

// TestLoadProfileBaseline: with --profile, the --proto the profile does
// not name load as they are, interleaved with the profiled one: on the
// profiled bench when the profile sets only what they ignore, on a bench
// of their own when it sets a knob they take too (notsent_lowat).
func TestLoadProfileBaseline(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ settings, key string }{
		{"scheduler = \"roundrobin\"\n", "scheduler"},
		{"notsent_lowat = 16384\n", "notsent_lowat"},
	} {
		prof := filepath.Join(dir, tc.key+".toml")
		src := "name = \"p\"\nprotocols = [\"spdy/3.1\"]\n[settings]\n" + tc.settings
		if err := os.WriteFile(prof, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		args := []string{"--no-link", "--runs", "1", "--json", "--page", "pageA", "--proto", "https,spdy/3.1", "--profile", prof, "--work-dir", dir}
		if code := runLoad(context.Background(), args, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.key, code, errb.String())
		}
		conds := map[string]map[string]any{}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var sum struct {
				Proto     string         `json:"proto"`
				Runs      int            `json:"runs"`
				Failed    int            `json:"failed"`
				Condition map[string]any `json:"condition"`
			}
			if err := json.Unmarshal([]byte(line), &sum); err != nil {
				t.Fatalf("%v: %s", err, line)
			}
			if sum.Runs != 1 || sum.Failed != 0 {
				t.Errorf("%s %s: %d runs, %d failed", tc.key, sum.Proto, sum.Runs, sum.Failed)
			}
			conds[sum.Proto] = sum.Condition
		}
		base, prof1 := conds["https"], conds["spdy/3.1"]
		if base == nil || prof1 == nil {
			t.Fatalf("%s: summaries %v, want https and spdy/3.1", tc.key, conds)
		}
		if jsonKey(base, tc.key) != nil || base["profile"] != nil {
			t.Errorf("%s: https loaded with %s=%v profile=%v, want it as it is", tc.key, tc.key, jsonKey(base, tc.key), base["profile"])
		}
		if label, _ := prof1["profile"].(string); jsonKey(prof1, tc.key) == nil || !strings.HasPrefix(label, "p@") {
			t.Errorf("%s: spdy/3.1 loaded with %s=%v profile=%v, want the profile's", tc.key, tc.key, jsonKey(prof1, tc.key), prof1["profile"])
		}
	}
}

// jsonKey finds key in a condition's JSON, at the top or one object down
// (the TCP settings).
func jsonKey(c map[string]any, key string) any {
	if v, ok := c[key]; ok {
		return v
	}
	for _, v := range c {
		if m, ok := v.(map[string]any); ok && m[key] != nil {
			return m[key]
		}
	}
	return nil
}

// TestStudyProfileFactor: a study's profile factor configures the
// protocol it names, and the report pairs that condition with the
// baseline at the baseline's own values.
func TestStudyProfileFactor(t *testing.T) {
	dir := t.TempDir()
	prof := "name = \"t1\"\nprotocols = [\"spdy/3.1\"]\n[settings]\ninitial_window = 1048576\nscheduler = \"roundrobin\"\n"
	study := "name = \"pf\"\nruns = 2\nseed = 1\n[factors]\npage = \"pageC\"\nprotocol = [\"https\", \"spdy/3.1\"]\nprofile = [\"\", \"tuned.toml\"]\n"
	for name, src := range map[string]string{"tuned.toml": prof, "pf.toml": study} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	if code := runCmd([]string{filepath.Join(dir, "pf.toml"), "--no-link", "--out", out, "-q"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	j, err := os.ReadFile(filepath.Join(out, "conditions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var conds []struct {
		Values   map[string]string `json:"values"`
		Gain     *float64          `json:"gain"`
		Baseline string            `json:"baseline_hash"`
	}
	if err := json.Unmarshal(j, &conds); err != nil {
		t.Fatal(err)
	}
	tuned := 0
	for _, c := range conds {
		if c.Values["profile"] == "" {
			continue
		}
		tuned++
		if c.Values["protocol"] != "spdy/3.1" || c.Values["scheduler"] != "roundrobin" || c.Gain == nil || c.Baseline == "" {
			t.Errorf("tuned condition %v: gain %v against %q", c.Values, c.Gain, c.Baseline)
		}
	}
	if tuned != 1 || len(conds) != 3 {
		t.Errorf("%d conditions, %d tuned; want 3 and 1", len(conds), tuned)
	}
}
