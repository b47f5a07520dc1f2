package studyfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

func TestBuiltinsParse(t *testing.T) {
	want := map[string]int{
		"quick":               2 * 2 * 2 * 2 * 2,
		"study1-cablelabs":    432, // 144 cells x https, spdy/2, spdy/3.1
		"study2-delay":        3 * 2 * 13,
		"study2-bandwidth":    3 * 2 * 8,
		"study2-iw":           3 * 2 * 4,
		"study2-loss":         3 * 2 * 7,
		"study2-shards":       3 * 2 * 7,
		"study2-streams":      3 * 5 * (11 + 1),
		"study3-sctp":         8 * (2*4 + 2),
		"study4-google":       4 * 2 * (5 + 6 + 6),
		"study5-multiplexing": 4 * 4 * 3 * 5,
		"fidelity":            3*4*2*2*2*3 + 3*(2*2*3+2*3), // calibration grid + validation cells
		// Nine presets and the walks' steps between them, deduplicated.
		"study6-reconcile": 294,
	}
	names := BuiltinNames()
	if names[0] != "quick" {
		t.Errorf("quick should be listed first, got %v", names)
	}
	for _, n := range names {
		s, err := Builtin(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if s.Name != n {
			t.Errorf("%s: name inside the file is %q", n, s.Name)
		}
		if w, ok := want[n]; !ok {
			t.Errorf("unexpected built-in %s", n)
		} else if len(s.Conditions) != w {
			t.Errorf("%s: %d conditions, want %d", n, len(s.Conditions), w)
		}
		seen := map[string]bool{}
		for _, c := range s.Conditions {
			if seen[c.Hash] {
				t.Errorf("%s: duplicate condition %s", n, c.Hash)
			}
			seen[c.Hash] = true
		}
	}
}

func TestStudy1Conditions(t *testing.T) {
	s, err := Builtin("study1-cablelabs")
	if err != nil {
		t.Fatal(err)
	}
	if s.Baseline["protocol"] != "https" || s.Baseline["iw"] != "3" {
		t.Errorf("baseline = %v", s.Baseline)
	}
	var c *spec.Cond
	for i := range s.Conditions {
		v := s.Conditions[i].Values
		if v["page"] == "pageB" && v["shards"] == "2" && v["rate"] == "20mbit/2mbit" && v["rtt"] == "100ms" && v["loss"] == "1%" && v["iw"] == "3" && v["protocol"] == "spdy/3.1" {
			c = &s.Conditions[i]
		}
	}
	if c == nil {
		t.Fatal("condition pageB/2/20mbit/100ms/1%/iw3/spdy missing")
	}
	want := probe.Link{DownBps: 20e6, UpBps: 2e6, RTT: 100e6, LossDown: 0.01, LossUp: 0.01, QueuePkts: 50, Shared: true}
	if c.Link != want {
		t.Errorf("link = %+v, want %+v", c.Link, want)
	}
	if c.TCP.IW != 3 || c.TCP.CC != "cubic" || c.TLS != "1.2" || c.Shards != 2 || c.ShardMode != "equal" {
		t.Errorf("condition = %+v", c.Condition)
	}
	if strings.Join(s.Varied, ",") != "page,shards,rate,rtt,loss,iw,protocol" {
		t.Errorf("varied = %v", s.Varied)
	}
}

func TestStudy2StreamsExclusion(t *testing.T) {
	s, err := Builtin("study2-streams")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Conditions {
		if c.Proto == probe.ProtoHTTPS && c.MaxStreams != 100 {
			t.Errorf("https condition with max_streams %d survived the exclusion", c.MaxStreams)
		}
	}
}

func TestMatrixBlocksAndDownUp(t *testing.T) {
	s, err := Parse([]byte(`
name = "x"
runs = 1
[factors]
page = "pageA"
protocol = ["https", "h2"]
down = ["1mbit", "2mbit"]
up = "256kbit"
[[matrix]]
rtt = ["10ms", "20ms"]
[[matrix]]
rtt = "20ms"
loss = ["0.01", "2%"]
loss_dir = "down"
`), "")
	if err != nil {
		t.Fatal(err)
	}
	// block 1: 2 protos x 2 rates x 2 rtts = 8; block 2: 2x2x2 = 8, minus
	// nothing shared (loss differs) = 16 distinct.
	if len(s.Conditions) != 16 {
		t.Fatalf("%d conditions, want 16", len(s.Conditions))
	}
	var lossy int
	for _, c := range s.Conditions {
		if c.Link.UpBps != 256000 {
			t.Errorf("up = %d", c.Link.UpBps)
		}
		if c.Link.LossDown > 0 {
			lossy++
			if c.Link.LossUp != 0 {
				t.Errorf("loss_dir down also set up loss: %+v", c.Link)
			}
			if c.Values["loss"] != "1%" && c.Values["loss"] != "2%" {
				t.Errorf("loss canonical value %q", c.Values["loss"])
			}
		}
	}
	if lossy != 8 {
		t.Errorf("%d lossy conditions, want 8", lossy)
	}
}

func TestParseErrorsNameLineKeyAndValue(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"syntax", "name = \"x\"\nruns = \n", []string{"line 2"}},
		{"unknown top key", "name = \"x\"\nruns = 1\ncolour = 3\n[factors]\npage=\"pageA\"\nprotocol=\"https\"\n", []string{"line 3", `"colour"`}},
		{"unknown factor", "name = \"x\"\nruns = 1\n[factors]\npage=\"pageA\"\nprotocol=\"https\"\nbandwith = \"1mbit\"\n", []string{"line 6", `"bandwith"`}},
		{"bad rate", "name = \"x\"\nruns = 1\n[factors]\npage=\"pageA\"\nprotocol=\"https\"\nrate = [\"1mbit\", \"10 furlongs\"]\n", []string{"line 6", "rate", `"10 furlongs"`}},
		{"bad protocol", "name = \"x\"\nruns = 1\n[factors]\npage=\"pageA\"\nprotocol=[\"https\", \"spdy/1\"]\n", []string{"line 5", `"spdy/1"`, "spdy/3.1"}},
		{"bad loss", "name = \"x\"\nruns = 1\n[factors]\npage=\"pageA\"\nprotocol=\"https\"\nloss = \"150%\"\n", []string{"line 6", "loss"}},
		{"wrong type", "name = \"x\"\nruns = 1\n[factors]\npage=\"pageA\"\nprotocol=\"https\"\nshards = \"two\"\n", []string{"line 6", "shards", "integer"}},
		{"shards range", "name = \"x\"\nruns = 1\n[factors]\npage=\"pageA\"\nprotocol=\"https\"\nshards = [1, 9]\n", []string{"line 6", "shards = 9", "between 1 and 8"}},
		{"unknown page", "name = \"x\"\nruns = 1\n[factors]\npage=\"pageZ\"\nprotocol=\"https\"\n", []string{"line 4", `"pageZ"`, "pageA"}},
		{"missing manifest", "name = \"x\"\nruns = 1\n[factors]\npage=\"nope/site.json\"\nprotocol=\"https\"\n", []string{"line 4", "manifest"}},
		{"no runs", "name = \"x\"\n[factors]\npage=\"pageA\"\nprotocol=\"https\"\n", []string{"runs = 0"}},
		{"bad name", "name = \"a b\"\nruns=1\n[factors]\npage=\"pageA\"\nprotocol=\"https\"\n", []string{"line 1", "name"}},
		{"missing protocol", "name = \"x\"\nruns = 1\n[factors]\npage=\"pageA\"\n", []string{"protocol", "required"}},
		{"duplicate value", "name = \"x\"\nruns = 1\n[factors]\npage=\"pageA\"\nprotocol=\"https\"\nrtt = [\"0.1s\", \"100ms\"]\n", []string{"line 6", "twice"}},
		{"empty matrix", "name = \"x\"\nruns = 1\n[factors]\npage=\"pageA\"\nprotocol=\"https\"\n\n[[exclude]]\npage = \"pageA\"\n", []string{"line 7", "empty"}},
		{"exclusion matches nothing", "name = \"x\"\nruns = 1\n[factors]\npage=\"pageA\"\nprotocol=[\"https\",\"h2\"]\n[[exclude]]\nprotocol = \"spdy/3\"\n", []string{"line 6", "matches no condition"}},
		{"bad exclusion value", "name = \"x\"\nruns = 1\n[factors]\npage=\"pageA\"\nprotocol=[\"https\",\"h2\"]\n[[exclude]]\nprotocol = \"gopher\"\n", []string{"line 7", `"gopher"`}},
		{"baseline absent", "name = \"x\"\nruns = 1\nbaseline = { protocol = \"h2\" }\n[factors]\npage=\"pageA\"\nprotocol=[\"https\",\"spdy/3\"]\n", []string{"line 3", "baseline protocol"}},
		{"rate and down", "name = \"x\"\nruns = 1\n[factors]\npage=\"pageA\"\nprotocol=\"https\"\nrate=\"1mbit\"\ndown=\"2mbit\"\n", []string{"either"}},
		{"bad timeout", "name = \"x\"\nruns = 1\ntimeout = \"soon\"\n[factors]\npage=\"pageA\"\nprotocol=\"https\"\n", []string{"line 3", "timeout"}},
		{"rtt without unit", "name = \"x\"\nruns = 1\n[factors]\npage=\"pageA\"\nprotocol=\"https\"\nrtt = \"100\"\n", []string{"line 6", `"100"`, "did you mean 100ms?"}},
		{"timeout without unit", "name = \"x\"\nruns = 1\ntimeout = \"60\"\n[factors]\npage=\"pageA\"\nprotocol=\"https\"\n", []string{"line 3", "did you mean 60s?"}},
		{"unknown matrix factor", "name = \"x\"\nruns = 1\n[factors]\npage=\"pageA\"\nprotocol=\"https\"\n[[matrix]]\nrtt=\"1ms\"\n[[matrix]]\nrttt=\"1ms\"\n", []string{"line 9", `"rttt"`}},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.src), "")
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
	}
}

func TestManifestPathRelativeToStudyFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "site.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "s.toml")
	os.WriteFile(p, []byte("name=\"m\"\nruns=2\n[factors]\npage=\"./site.json\"\nprotocol=\"https\"\n"), 0o644)
	s, err := ParseFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Conditions[0].Page != filepath.Join(dir, "site.json") {
		t.Errorf("page = %q", s.Conditions[0].Page)
	}
}

func TestFingerprint(t *testing.T) {
	a, _ := Builtin("quick")
	b, _ := Builtin("quick")
	if a.Fingerprint() != b.Fingerprint() {
		t.Error("same study, different fingerprints")
	}
	b.Runs = 2
	if a.Fingerprint() == b.Fingerprint() {
		t.Error("fingerprint ignores runs")
	}
	c, _ := Builtin("study1-cablelabs")
	if a.Fingerprint() == c.Fingerprint() {
		t.Error("different studies share a fingerprint")
	}
}

func TestCanonicalValues(t *testing.T) {
	canon := func(name string) func(string) (string, error) { f, _ := factorByName(name); return f.canon }
	canonRatePair, canonLoss, canonDuration := canon("rate"), canon("loss"), canon("rtt")
	for in, want := range map[string]string{"10mbit": "10mbit/10mbit", "10mbit/1mbit": "10mbit/1mbit", "1500kbit/256kbit": "1.5mbit/256kbit", "unlimited": "unlimited/unlimited"} {
		if got, err := canonRatePair(in); err != nil || got != want {
			t.Errorf("rate %q -> %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{"0.01": "1%", "1%": "1%", "0": "0%", "2.5%": "2.5%"} {
		if got, err := canonLoss(in); err != nil || got != want {
			t.Errorf("loss %q -> %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := canonLoss("100%"); err == nil {
		t.Error("100% loss accepted")
	}
	for in, want := range map[string]string{"100ms": "100ms", "0.15s": "150ms", "0": "0s"} {
		if got, err := canonDuration(in); err != nil || got != want {
			t.Errorf("rtt %q -> %q, %v; want %q", in, got, err, want)
		}
	}
}

// A sweep holds every factor but its own, the page and
// the variants'; study4-google's blocks are one sweep each.
func TestSweepsFollowTheMatrixBlocks(t *testing.T) {
	s, err := Builtin("study4-google")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{
		"rate": {"rtt": "60ms", "queue": "100pkt", "iw": "3"},
		"rtt":  {"rate": "5mbit/1mbit", "queue": "100pkt", "iw": "3"},
		"iw":   {"rate": "100mbit/100mbit", "rtt": "200ms", "queue": "1000pkt"},
	}
	// 4 pages x 2 protocols x the sweep's values; the RTT sweep also
	// passes through the rate sweep's 5 Mbit/s, 60 ms point.
	count := map[string]int{"rate": 8 * 5, "rtt": 8 * 7, "iw": 8 * 6}
	for f, held := range want {
		sweeps := spec.Sweeps(s, f)
		if len(sweeps) != 1 {
			t.Errorf("%s: %d sweeps, want 1: %v", f, len(sweeps), sweeps)
			continue
		}
		sw := sweeps[0]
		for k, v := range held {
			if sw.Held[k] != v {
				t.Errorf("%s sweep holds %s=%q, want %q", f, k, sw.Held[k], v)
			}
		}
		for _, k := range []string{f, "page", "protocol"} {
			if _, ok := sw.Held[k]; ok {
				t.Errorf("%s sweep holds %s", f, k)
			}
		}
		n := 0
		for _, c := range s.Conditions {
			if sw.Has(c) {
				n++
			}
		}
		if n != count[f] {
			t.Errorf("%s sweep has %d conditions, want %d", f, n, count[f])
		}
	}
	q, err := Builtin("quick")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(spec.Sweeps(q, "rtt")); n != 4 {
		t.Errorf("quick: %d RTT sweeps, want one per loss x shards = 4", n)
	}
	if n := len(spec.Sweeps(q, "protocol")); n != 0 {
		t.Errorf("quick: %d protocol sweeps; the baseline's factor is the variants, not a sweep", n)
	}
}
