package tune

import (
	"slices"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/studyfile"
)

const cellsStudy = `name = "c"
runs = 1
seed = 4
[factors]
page = "pageA"
rtt = ["20ms", "100ms"]
iw = [3, 10]
protocol = ["https", "spdy/3.1", "h2"]
[baseline]
protocol = "https"
iw = 3
`

// TestCellsAreTheVariantsConditions: one cell per condition of the
// variant that has a baseline twin (the pairing is spec.Study.BaselineTwins'),
// named by the factors the study varies, protocol aside.
func TestCellsAreTheVariantsConditions(t *testing.T) {
	s, err := studyfile.Parse([]byte(cellsStudy), "")
	if err != nil {
		t.Fatal(err)
	}
	cells, err := cellsOf(s, "spdy/3.1")
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 4 {
		t.Fatalf("%d cells, want 4 (2 rtt x 2 iw)", len(cells))
	}
	twins := s.BaselineTwins()
	for _, c := range cells {
		i := slices.IndexFunc(s.Conditions, func(sc spec.Cond) bool { return sc.Hash == c.Key })
		if i < 0 || c.Variant.Proto != "spdy/3.1" || c.Base.Hash != s.Conditions[twins[i]].Hash {
			t.Errorf("cell %s: variant %s paired with %s", c.Label, c.Variant.Describe(), c.Base.Describe())
		}
		if !strings.Contains(c.Label, "rtt=") || strings.Contains(c.Label, "protocol") {
			t.Errorf("cell label %q: want the varied factors but the protocol", c.Label)
		}
	}
	if p, _ := DefaultProtocol(s); p != "spdy/3.1" {
		t.Errorf("default protocol %s, want spdy/3.1", p)
	}
}

func TestPrepareRefusesBadInputBeforeAnyLoad(t *testing.T) {
	s, err := studyfile.Parse([]byte(cellsStudy), "")
	if err != nil {
		t.Fatal(err)
	}
	base := Config{Study: s, Objective: "worst", Train: 0.5, Knobs: []Knob{{"cc", []string{"reno"}}}, Budget: DefaultBudget}
	base.Budget.Loads = 100000
	for label, c := range map[string]struct {
		edit func(*Config)
		want string
	}{
		"protocol not in study": {func(c *Config) { c.Protocol = "h3" }, "not in study"},
		"baseline protocol":     {func(c *Config) { c.Protocol = "https" }, "is the study's baseline"},
		"objective":             {func(c *Config) { c.Objective = "best" }, "--objective"},
		"train":                 {func(c *Config) { c.Train = 0 }, "--train"},
		"knob":                  {func(c *Config) { c.Knobs = []Knob{{"rtt", []string{"1ms"}}} }, "emulated link"},
		"knob for protocol":     {func(c *Config) { c.Protocol = "h2"; c.Knobs = []Knob{{"scheduler", []string{"fifo"}}} }, "knob scheduler = fifo: scheduler has no effect on h2"},
		"budget":                {func(c *Config) { c.Budget.Loads = 20 }, "too small"},
		"metric":                {func(c *Config) { c.Metric = "ttfb" }, "--metric: metric \"ttfb\": want one of plt, tow, fcp, lcp, si"},
		"metric of no client":   {func(c *Config) { c.Metric = "si" }, "--metric si: client loader cannot give it: Speed Index is computed from the screencast frames"},
	} {
		cfg := base
		c.edit(&cfg)
		_, err := Prepare(cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", label, err, c.want)
		}
	}
	if _, err := Prepare(base); err != nil {
		t.Errorf("a good config: %v", err)
	}
}

// TestDefaultSpaceKeepsWhatTheVariantTakes: a tune that names no knobs
// searches the Space as far as the variant takes it, and says what it
// left out; a knob named for a variant that ignores it is still refused.
func TestDefaultSpaceKeepsWhatTheVariantTakes(t *testing.T) {
	text := strings.Replace(cellsStudy, `"spdy/3.1", "h2"`, `"spdy/2", "spdy/3.1", "h2"`, 1)
	s, err := studyfile.Parse([]byte(strings.Replace(text, "[factors]", "[factors]\nrate = \"10mbit/1mbit\"", 1)), "")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Study: s, Objective: "worst", Train: 0.5, Budget: DefaultBudget}
	cfg.Budget.Loads = 1 << 30
	for proto, gone := range map[string][]string{
		"spdy/2":   {"session_window", "adaptive_window"},
		"spdy/3.1": nil,
		"h2":       {"scheduler", "frame_size", "frame_ramp", "adaptive_window", "hints"},
	} {
		cfg.Protocol = proto
		tn, err := Prepare(cfg)
		if err != nil {
			t.Fatalf("%s with the default space: %v", proto, err)
		}
		names := map[string]bool{}
		for _, k := range tn.knobs {
			names[k.Name] = true
		}
		for _, k := range Space {
			dropped := slices.Contains(gone, k.Name)
			if names[k.Name] == dropped {
				t.Errorf("%s: knob %s searched = %v, want %v", proto, k.Name, names[k.Name], !dropped)
			}
			if dropped && !strings.Contains(tn.Plan(), "left out of the search space: ") || dropped && !strings.Contains(tn.Plan(), k.Name) {
				t.Errorf("%s: the plan does not say %s was left out: %s", proto, k.Name, tn.Plan())
			}
		}
		if len(gone) == 0 && strings.Contains(tn.Plan(), "left out") {
			t.Errorf("%s: nothing should be left out: %s", proto, tn.Plan())
		}
	}
	// Without a link rate, pacing = link cannot be tried; pacing = on can.
	bare, _ := studyfile.Parse([]byte(cellsStudy), "")
	tn, err := Prepare(Config{Study: bare, Protocol: "spdy/3.1", Objective: "worst", Train: 0.5, Budget: Budget{Loads: 1 << 30, Eta: 3, MinRuns: 3, MaxRuns: 5, MaxSamples: 27}})
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(tn.knobs, func(k Knob) bool { return k.Name == "pacing" }); i < 0 || slices.Contains(tn.knobs[i].Values, "link") {
		t.Errorf("pacing without a link rate: knobs %v, want pacing searched without link", tn.knobs)
	}
	if !strings.Contains(tn.Plan(), "pacing = link (pacing link needs a downlink rate") {
		t.Errorf("the plan does not say why pacing = link was left out: %s", tn.Plan())
	}
	cfg.Protocol, cfg.Knobs = "spdy/2", []Knob{{"session_window", []string{"1048576"}}}
	if _, err := Prepare(cfg); err == nil || !strings.Contains(err.Error(), "session_window has no effect on spdy/2") {
		t.Errorf("a named knob spdy/2 ignores: %v, want it refused", err)
	}
}
