package probe

import (
	"strings"
	"testing"
)

func TestComputeCanonicalSpelling(t *testing.T) {
	for in, want := range map[string]string{
		"recorded": "recorded", "none": "none", "x1": "recorded", "x0": "none", "x0.50": "x0.5",
		"x2": "x2", "x1e1": "x10",
	} {
		if got, err := canonCompute(in); err != nil || got != want {
			t.Errorf("canonCompute(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "2", "x", "x-1", "xNaN", "x101", "half", "X2"} {
		if _, err := canonCompute(bad); err == nil || !strings.Contains(err.Error(), "compute") {
			t.Errorf("canonCompute(%q) = %v, want an error naming compute", bad, err)
		}
	}
}

func TestMethodFieldsStoreTheirDefaultsEmpty(t *testing.T) {
	c, err := NewCondition(map[string]string{"page": "pageA", "protocol": ProtoHTTPS,
		"compute": "recorded", "deps": "recorded"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Compute != "" || c.Deps != "" || c.Until != "" {
		t.Errorf("defaults stored as compute %q deps %q until %q, want all empty", c.Compute, c.Deps, c.Until)
	}
	c, err = NewCondition(map[string]string{"page": "pageA", "protocol": ProtoHTTPS,
		"compute": "x0.5", "deps": "flat", "until": "all"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Compute != "x0.5" || c.Deps != DepsFlat || c.Until != UntilAll {
		t.Errorf("got compute %q deps %q until %q", c.Compute, c.Deps, c.Until)
	}
}

func TestNormalizeRefusesMethodConflicts(t *testing.T) {
	base := Condition{Page: "pageA", Proto: ProtoHTTPS}
	for name, tc := range map[string]struct {
		c    func(Condition) Condition
		want string
	}{
		"none on chromium":        {func(c Condition) Condition { c.Compute, c.Client = ComputeNone, ClientChromium; return c }, "client chromium computes for itself"},
		"none with renderer cost": {func(c Condition) Condition { c.Compute, c.RendererCosts = ComputeNone, "35ms/2ms"; return c }, "leave it at profile"},
		"bad compute":             {func(c Condition) Condition { c.Compute = "fast"; return c }, `compute "fast"`},
		"bad deps":                {func(c Condition) Condition { c.Deps = "tree"; return c }, `unknown deps "tree"`},
		"bad until":               {func(c Condition) Condition { c.Until = "dom"; return c }, `unknown until "dom"`},
	} {
		if _, err := Normalize(tc.c(base)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one saying %q", name, err, tc.want)
		}
	}
	ok := base
	ok.Compute, ok.RendererCosts = ComputeNone, "0s/0s"
	if _, err := Normalize(ok); err != nil {
		t.Errorf("compute none with no renderer costs: %v", err)
	}
	if got := ok.RendererCostsSetting(); got != "0s/0s" {
		t.Errorf("compute none runs the loader with renderer costs %q, want none", got)
	}
	ok.Compute, ok.RendererCosts = "x2", "35ms/2ms"
	if got := ok.RendererCostsSetting(); got != "35ms/2ms" {
		t.Errorf("compute x2 runs with renderer costs %q, want the condition's", got)
	}
}
