package findings

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// threeWayFinding loads HTTPS, h2 and SPDY on one cell, with HTTPS the
// study's baseline and h2 a further one.
const threeWayFinding = `# question: Does SPDY beat HTTPS, and h2?
# loads: 5 per cell: a test.
# sample: out-of-sample: nothing fitted.
# also-against: protocol=h2
name = "finding-three"
runs = 5
seed = 7

[factors]
page = "pageA"
rate = "10mbit/1mbit"
rtt = "100ms"
protocol = ["https", "h2", "spdy/3.1"]

[baseline]
protocol = "https"
`

// fillFinding stores made-up loads for every condition of finding name:
// PLT pltOf(protocol), spread a little.
func fillFinding(t *testing.T, opt Options, name string, pltOf map[string]float64) {
	t.Helper()
	st, s := openNewStore(t, opt, name)
	defer st.Close()
	sess, err := st.StartSession(study.CollectProvenance(s.Seed, 1, spec.Shard{}, "test", nil))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, c := range s.Conditions {
		for run := 0; run < s.Runs; run++ {
			plt := pltOf[c.Values["protocol"]] * (1 + 0.01*float64(run-2))
			r := probe.Result{Condition: c.Condition, Run: run, Started: t0, PLTms: plt, ToWms: plt / 2}
			if _, err := st.Put(store.Probe{CondHash: c.Hash, Run: run, SessionID: sess, Result: r, Check: probe.LinkCheck{OK: true}}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A header's also-against line shows the variants against that baseline
// too, from the same loads; one naming a value the study lacks says so.
func TestAlsoAgainstShowsAFurtherBaseline(t *testing.T) {
	dir := t.TempDir()
	opt := testOptions(dir)
	writeFile(t, dir, "x", threeWayFinding)
	fillFinding(t, opt, "x", map[string]float64{"https": 1000, "h2": 800, "spdy/3.1": 500})
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	answer := strings.Join(rep.Rows[0].Answer, "\n")
	for _, want := range []string{"spdy/3.1 vs https: 2.00", "h2 vs https: 1.25", "spdy/3.1 vs h2: 1.60", "https vs h2: 0.80"} {
		if !strings.Contains(answer, want) {
			t.Errorf("answer lacks %q:\n%s", want, answer)
		}
	}

	writeFile(t, dir, "x", strings.Replace(threeWayFinding, "also-against: protocol=h2", "also-against: protocol=h3", 1))
	rep, err = Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if answer := strings.Join(rep.Rows[0].Answer, "\n"); !strings.Contains(answer, "also against protocol=h3: --baseline protocol=h3: the study's protocol takes") {
		t.Errorf("a baseline the study lacks: answer %q", answer)
	}
	for _, bad := range []string{"", "protocol"} {
		writeFile(t, dir, "y", strings.Replace(threeWayFinding, "also-against: protocol=h2", "also-against: "+bad, 1))
		if _, err := Read(dir, "y"); err == nil || !strings.Contains(err.Error(), "line 4: also-against") {
			t.Errorf("also-against %q: err %v, want one naming line 4", bad, err)
		}
	}
}
