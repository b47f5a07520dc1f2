package spec

import "testing"

func TestRunsAutoChangesTheFingerprintOnly(t *testing.T) {
	fixed := &Study{Name: "x", Runs: 5, Conditions: []Cond{{Hash: "a"}, {Hash: "b"}}}
	auto := *fixed
	if err := auto.SetRunsAuto(DefaultAutoRuns()); err != nil {
		t.Fatal(err)
	}
	if auto.Fingerprint() == fixed.Fingerprint() {
		t.Error("automatic runs share the fixed runs' fingerprint")
	}
	wider := *fixed
	if err := wider.SetRunsAuto(AutoRuns{Target: 0.1, Min: 5, Max: 40}); err != nil {
		t.Fatal(err)
	}
	if wider.Fingerprint() == auto.Fingerprint() {
		t.Error("two targets share a fingerprint")
	}
	for _, bad := range []AutoRuns{{0, 5, 40}, {1, 5, 40}, {0.05, 3, 40}, {0.05, 5, 4}} {
		if (&Study{}).SetRunsAuto(bad) == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
