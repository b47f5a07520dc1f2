package report

import (
	"bytes"
	stdhtml "html"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

const fidelityStudy = `name = "fid"
runs = 5
seed = 1
[factors]
page = "pageA"
rtt = ["20ms", "100ms"]
protocol = ["https", "h2"]
client = ["loader", "chromium"]
browser_profile = ["chrome16", "chromium-modern"]
[[exclude]]
client = "chromium"
browser_profile = "chromium-modern"
[baseline]
protocol = "https"
`

// fidelityPLT is the known median PLT of a condition: Chromium 1000 ms;
// the chrome16 loader 20% fast; chromium-modern 5% slow, h2 at 100 ms 12%.
func fidelityPLT(v map[string]string) float64 {
	switch {
	case v["client"] == "chromium":
		return 1000
	case v["browser_profile"] == "chrome16":
		return 800
	case v["protocol"] == "h2" && v["rtt"] == "100ms":
		return 1120
	}
	return 1050
}

func fillFidelityStore(t *testing.T, dir string) { fillFidelityStoreWith(t, dir, fidelityStudy) }

func fillFidelityStoreWith(t *testing.T, dir, src string) {
	t.Helper()
	s, st, sess := openTestStore(t, dir, src)
	defer st.Close()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range s.Conditions {
		base := fidelityPLT(c.Values)
		for run := 0; run < s.Runs; run++ {
			r := probe.Result{Condition: c.Condition, Run: run, Started: t0, PLTms: base + float64(run-2)*10, ToWms: base - 100, HAR: fakeHAR(t0)}
			if _, err := st.Put(store.Probe{CondHash: c.Hash, Run: run, SessionID: sess, Result: r, Check: probe.LinkCheck{OK: true}}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestFidelitySection(t *testing.T) {
	dir := t.TempDir()
	fillFidelityStore(t, dir)
	a, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	cells, sums := Fidelity(a)
	if len(cells) != 8 {
		t.Fatalf("%d cells, want 8 (2 profiles x 2 protocols x 2 RTTs)", len(cells))
	}
	for _, c := range cells {
		if c.Browser.ClientName() != probe.ClientChromium || c.Loader.ClientName() != probe.ClientLoader ||
			c.Browser.Proto != c.Loader.Proto || c.Browser.Link.RTT != c.Loader.Link.RTT {
			t.Fatalf("cell pairs %+v with %+v", c.Loader.Values, c.Browser.Values)
		}
		want := fidelityPLT(c.Loader.Values) / 1000
		if math.Abs(c.Ratio-want) > 1e-9 || !(c.Lo <= c.Ratio && c.Ratio <= c.Hi) {
			t.Errorf("%v: ratio %v [%v, %v], want %v", c.Loader.Values, c.Ratio, c.Lo, c.Hi, want)
		}
	}
	want := map[string][2]float64{ // profile/proto -> mean, worst |error| %
		"chrome16/https":        {20, 20},
		"chrome16/h2":           {20, 20},
		"chromium-modern/https": {5, 5},
		"chromium-modern/h2":    {8.5, 12},
	}
	if len(sums) != len(want) {
		t.Fatalf("summaries %+v", sums)
	}
	for _, s := range sums {
		w := want[s.Profile+"/"+s.Proto]
		if math.Abs(s.MeanAbsErrPct-w[0]) > 1e-6 || math.Abs(s.WorstAbsErrPct-w[1]) > 1e-6 || s.Cells != 2 {
			t.Errorf("%s/%s: mean %v worst %v over %d cells, want %v", s.Profile, s.Proto, s.MeanAbsErrPct, s.WorstAbsErrPct, s.Cells, w)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	for _, w := range []string{"Fidelity: loader vs Chromium", "Fidelity per cell", "h1 (https)", "0 of 2", "1 of 2", "1.120"} {
		if !bytes.Contains(html, []byte(w)) {
			t.Errorf("report.html lacks %q", w)
		}
	}
}

func TestNoFidelitySectionWithOneClient(t *testing.T) {
	dir := t.TempDir()
	fillStore(t, dir, cableStudy, nil)
	if _, err := Build(dir); err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	if bytes.Contains(html, []byte("Fidelity")) {
		t.Error("a loader-only report has a fidelity section")
	}
}

// TestFidelitySummaryKeepsRealPagesApart: a real page's cells (a recording
// over its own hosts) are summarised apart from the study pages', so that
// a good fit on the pages the loader is tuned on cannot hide a poor one
// on real pages.
func TestFidelitySummaryKeepsRealPagesApart(t *testing.T) {
	cell := func(pg string, errPct float64) FidelityCell {
		return FidelityCell{Loader: &Condition{Cond: spec.Cond{Condition: probe.Condition{Page: pg}}}, Profile: probe.ProfileChromiumModern,
			Proto: probe.ProtoH2, ErrPct: errPct}
	}
	sums := summarizeFidelity([]FidelityCell{
		cell("pageA", 4), cell("youtube", -6),
		cell("har:/pages/google-2019.har", 30), cell("/pages/vk/manifest.json", -20),
	})
	if len(sums) != 2 {
		t.Fatalf("%d summary rows, want 2 (study pages, real pages): %+v", len(sums), sums)
	}
	want := map[string][3]float64{studyPages: {5, 6, 2}, realPages: {25, 30, 0}} // mean, worst, within goal
	for _, s := range sums {
		w := want[s.Pages]
		if s.Cells != 2 || math.Abs(s.MeanAbsErrPct-w[0]) > 1e-9 || s.WorstAbsErrPct != w[1] || float64(s.WithinGoal) != w[2] {
			t.Errorf("%s: %d cells, mean %v, worst %v, within %d; want 2, %v", s.Pages, s.Cells, s.MeanAbsErrPct, s.WorstAbsErrPct, s.WithinGoal, w)
		}
	}
}

// TestFidelityGoalIsJudgedOnTheValidationSet: with the 20 ms cells
// declared the calibration set and the 100 ms ones the validation set,
// the report counts the goal per set, says "validation: N of M cells
// within 10%", names what the renderer costs were fitted on, and
// measures the renderer costs on the calibration cells alone.
func TestFidelityGoalIsJudgedOnTheValidationSet(t *testing.T) {
	src := strings.Replace(fidelityStudy, `rtt = ["20ms", "100ms"]`, `rtt = "20ms"`, 1) +
		"[[matrix]]\nrole = \"calibration\"\n[[matrix]]\nrole = \"validation\"\nrtt = \"100ms\"\n"
	dir := t.TempDir()
	fillFidelityStoreWith(t, dir, src)
	a, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range a.FidelityCells {
		want := spec.RoleCalibration
		if c.Loader.Link.RTT == 100*time.Millisecond {
			want = spec.RoleValidation
		}
		if c.Role != want {
			t.Errorf("%v: set %q, want %q", c.Loader.Values, c.Role, want)
		}
	}
	// Validation (100 ms): chrome16 20% off on both protocols,
	// chromium-modern 5% (https, in) and 12% (h2, out): 1 of 4 within.
	// Calibration (20 ms): chromium-modern 5% on both: 2 of 4.
	if got, want := FidelityGoalLine(a.FidelityCells), "validation: 1 of 4 cells within 10%; calibration (in sample): 2 of 4 cells within 10%"; got != want {
		t.Errorf("goal line %q, want %q", got, want)
	}
	for _, s := range a.FidelitySums {
		if s.Role == "" {
			t.Errorf("summary row %s/%s has no set", s.Profile, s.Proto)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	for _, w := range []string{"Fidelity goal: validation apart from calibration", "validation: 1 of 4 cells within 10%",
		probe.ChromiumModernRendererFit, "calibration (in sample)", "Measured on the calibration cells only"} {
		if !bytes.Contains(html, []byte(stdhtml.EscapeString(w))) {
			t.Errorf("report.html lacks %q", w)
		}
	}
	var text bytes.Buffer
	WriteFidelityGoal(&text, a)
	if !strings.HasPrefix(text.String(), "fidelity: validation: 1 of 4 cells within 10%") {
		t.Errorf("spdylab report's text: %q", text.String())
	}
	for _, m := range a.Renderer {
		if m.CommitLoads != 2*5 { // 2 protocols x 5 runs at 20 ms, per client
			t.Errorf("renderer costs of %s measured on %d loads, want the 10 of the calibration cells", m.Client, m.CommitLoads)
		}
	}
}

// TestFidelityInTheChosenMetric: with --metric fcp the fidelity section
// compares the loader's FCP estimates with Chromium's FCP, not PLTs. Every
// loader condition's FCP is 10% above Chromium's while their PLTs differ
// by 5-20%, so only an FCP comparison gives 1.1 in every cell.
func TestFidelityInTheChosenMetric(t *testing.T) {
	dir := t.TempDir()
	s, st, sess := openTestStore(t, dir, fidelityStudy)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range s.Conditions {
		fcp := 500.0
		if c.Values["client"] != "chromium" {
			fcp = 550
		}
		for run := 0; run < s.Runs; run++ {
			r := probe.Result{Condition: c.Condition, Run: run, Started: t0, PLTms: fidelityPLT(c.Values), ToWms: 500, HAR: fakeHAR(t0)}
			v := fcp + float64(run-2)
			r.Paint = &probe.Paint{FCPms: &v, Estimated: c.Values["client"] != "chromium"}
			if _, err := st.Put(store.Probe{CondHash: c.Hash, Run: run, SessionID: sess, Result: r, Check: probe.LinkCheck{OK: true}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	st.Close()
	a, err := BuildWith(dir, Options{Metric: probe.MetricFCP})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.FidelityCells) != 8 {
		t.Fatalf("%d fidelity cells, want 8", len(a.FidelityCells))
	}
	for _, c := range a.FidelityCells {
		if math.Abs(c.LoaderMs-550) > 1e-9 || math.Abs(c.BrowserMs-500) > 1e-9 || math.Abs(c.ErrPct-10) > 1e-6 {
			t.Errorf("%v: loader %v ms, Chromium %v ms, error %v%%; want FCPs 550 and 500, 10%%", c.Loader.Values, c.LoaderMs, c.BrowserMs, c.ErrPct)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	if !bytes.Contains(html, []byte("Fidelity: loader vs Chromium (FCP)")) || !bytes.Contains(html, []byte("|loader median FCP / Chromium median FCP - 1|")) {
		t.Error("report.html's fidelity section does not say it compares FCP")
	}
}
