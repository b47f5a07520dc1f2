package tune

import (
	"strings"
	"testing"

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

// TestCellsPairEachVariantWithItsBaselineTwin: as the report pairs them,
// a variant at iw 10 is compared with the baseline at iw 3 (the baseline's
// own value), one cell per variant condition.
func TestCellsPairEachVariantWithItsBaselineTwin(t *testing.T) {
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
	for _, c := range cells {
		if c.Base.Proto != "https" || c.Base.TCP.IW != 3 || c.Base.Values["rtt"] != c.Variant.Values["rtt"] {
			t.Errorf("cell %s paired with %s", c.Label, c.Base.Describe())
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
