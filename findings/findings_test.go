package findings

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// smallFinding is a one-cell finding on a study page (no recordings).
const smallFinding = `# question: Does SPDY beat HTTPS on page A at 10/1 Mbit/s?
# loads: 3 per cell: a test.
# sample: out-of-sample: nothing fitted.
name = "finding-test"
runs = 3
seed = 7

[factors]
page = "pageA"
rate = "10mbit/1mbit"
rtt = "100ms"
protocol = ["https", "spdy/3.1"]

[baseline]
protocol = "https"
`

func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name+".toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func testOptions(dir string) Options {
	return Options{Dir: dir, Out: filepath.Join(dir, "out"), Command: "spdylab findings (test)", NoRun: true,
		now: func() time.Time { return time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC) }}
}

// createStore makes an empty store for the finding as the file now reads.
func createStore(t *testing.T, opt Options, name string) string {
	t.Helper()
	st, _ := openNewStore(t, opt, name)
	st.Close()
	return StoreDir(opt.Out, name, opt.Runs)
}

// openNewStore makes an empty store for the finding as the file now
// reads and returns it open, with the finding's study; the caller closes it.
func openNewStore(t *testing.T, opt Options, name string) (*store.Store, *spec.Study) {
	t.Helper()
	f, err := Read(opt.Dir, name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Study("", opt.Runs)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.CreateStore(StoreDir(opt.Out, name, opt.Runs), s)
	if err != nil {
		t.Fatal(err)
	}
	return st, s
}

func TestReadHeaderErrorsNameTheProblem(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ text, want string }{
		"noquestion": {strings.Replace(smallFinding, "# question:", "# asks:", 1), `line 1: header key "asks"`},
		"noloads":    {strings.Replace(smallFinding, "# loads: 3 per cell: a test.\n", "", 1), `no "# loads:" line`},
		"badpages":   {"# pages: maybe\n" + smallFinding, `header pages: "maybe"`},
		"baddriver":  {"# kind: driver\n" + smallFinding, "unknown key"},
	} {
		writeFile(t, dir, name, c.text)
		_, err := Read(dir, name)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), name+".toml") {
			t.Errorf("%s: error %v, want one naming the file and %q", name, err, c.want)
		}
	}
}

func TestHeaderContinuationAndInSample(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "x", "# question: one\n#   two\n# in-sample: tuned: chosen here\n"+strings.SplitN(smallFinding, "\n", 2)[1])
	f, err := Read(dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	if f.Question != "one two" {
		t.Errorf("question %q, want the continued line joined", f.Question)
	}
	if got := f.SampleOf("spdy/3.1 tuned@1234"); got != "in-sample: chosen here" {
		t.Errorf("a tuned variant's sample: %q", got)
	}
	if got := f.SampleOf("spdy/3.1"); got != "out-of-sample: nothing fitted." {
		t.Errorf("a default variant's sample: %q", got)
	}
}

// A file that no longer parses is shown as broken, whatever its folder
// holds: never the old store's numbers.
func TestBrokenFileIsNotShownAsCurrent(t *testing.T) {
	dir := t.TempDir()
	opt := testOptions(dir)
	writeFile(t, dir, "x", smallFinding)
	createStore(t, opt, "x")
	writeFile(t, dir, "x", strings.Replace(smallFinding, `rtt = "100ms"`, `rtt = "fast"`, 1))
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Rows[0]
	if r.Status != StatusBroken || !strings.Contains(r.Reason, "rtt") || !strings.Contains(r.Reason, "not shown") || r.Shown() {
		t.Fatalf("row %+v: want broken, naming rtt and the store not shown", r)
	}
	md, _ := os.ReadFile(rep.Markdown)
	if !strings.Contains(string(md), "| BROKEN: the findings file does not parse") || strings.Contains(string(md), "commit ") && strings.Contains(string(md), "UTC<br>") {
		t.Errorf("FINDINGS.md:\n%s", md)
	}
}

// A store made for another version of the file is stale with the store's
// reason under --no-run, and moved aside (kept) when running.
func TestStaleStore(t *testing.T) {
	dir := t.TempDir()
	opt := testOptions(dir)
	writeFile(t, dir, "x", smallFinding)
	storeDir := createStore(t, opt, "x")
	writeFile(t, dir, "x", strings.Replace(smallFinding, "seed = 7", "seed = 8", 1))
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Rows[0]; r.Status != StatusStale || !strings.Contains(r.Reason, "seed 7") {
		t.Fatalf("row %+v: want stale, naming the seed", r)
	}
	if !hasStore(storeDir) {
		t.Fatal("--no-run touched the stale store")
	}

	// Running: the stale store is moved aside and the finding run afresh;
	// this run is interrupted before its first load, and the row says so.
	opt.NoRun = false
	opt.Open = nil
	opt.Runs = 0
	rows := runOneWith(t, opt, "x")
	aside, _ := filepath.Glob(storeDir + ".stale-*")
	if len(aside) != 1 || !hasStore(aside[0]) {
		t.Fatalf("the stale store was not kept aside: %v", aside)
	}
	if r := rows[0]; r.Status != StatusFailed || !strings.Contains(r.Reason, "interrupted") {
		t.Errorf("row %+v: want the interrupted run", r)
	}
}

func runOneWith(t *testing.T, opt Options, name string) []Row {
	t.Helper()
	opt = withDefaults(opt)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no load may start: this test checks what happens around the run
	return runOne(ctx, opt, name)
}

// A finding whose last run failed shows the failure, not its stored loads.
func TestFailedRunShowsTheFailure(t *testing.T) {
	dir := t.TempDir()
	opt := testOptions(dir)
	writeFile(t, dir, "x", smallFinding)
	storeDir := createStore(t, opt, "x")
	if err := writeStamp(storeDir, &Stamp{State: StateFailed, Error: "bench: no such page"}); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Rows[0]; r.Status != StatusFailed || !strings.Contains(r.Reason, "no such page") || len(r.Answer) != 0 {
		t.Fatalf("row %+v: want the failure", r)
	}
}

func TestNeedsPages(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "x", strings.Replace(smallFinding, `page = "pageA"`, `page = "har:$PAGES/a.har"`, 1))
	rep, err := Run(context.Background(), testOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Rows[0]; r.Status != StatusNeedsPages {
		t.Fatalf("row %+v: want needs pages", r)
	}
}

func TestOnlyNamesAFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "x", smallFinding)
	opt := testOptions(dir)
	opt.Only = []string{"y"}
	if _, err := Run(context.Background(), opt); err == nil || !strings.Contains(err.Error(), "--only y") {
		t.Fatalf("err %v, want one naming --only y", err)
	}
}

const driverFinding = `# question: What does each attack cost?
# loads: one attack per class.
# sample: out-of-sample: nothing fitted.
# kind: driver
driver = "bench/dos"
args = ["-mode", "inproc"]
`

// A driver finding's table is current only for the file and arguments it
// was made with; a failed run shows its error, not the old table.
func TestDriverFinding(t *testing.T) {
	dir := t.TempDir()
	opt := testOptions(dir)
	opt.NoRun = false
	calls := 0
	var fail error
	opt.Driver = func(ctx context.Context, f *File, args []string) ([]byte, error) {
		calls++
		return []byte("| class | peak |\n|---|---|\n| bomb | 3 MiB |\n"), fail
	}
	writeFile(t, dir, "dos", driverFinding)
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Rows[0]; r.Status != StatusCurrent || !strings.Contains(r.Table, "bomb") {
		t.Fatalf("row %+v", r)
	}
	if _, err = Run(context.Background(), opt); err != nil || calls != 1 {
		t.Fatalf("a current table was made again (%d calls, %v)", calls, err)
	}
	writeFile(t, dir, "dos", strings.Replace(driverFinding, "inproc", "process", 1))
	opt.NoRun = true
	rep, _ = Run(context.Background(), opt)
	if r := rep.Rows[0]; r.Status != StatusStale || r.Table != "" {
		t.Fatalf("row %+v: want stale without the table", r)
	}
	opt.NoRun, fail = false, errors.New("node-spdy is not installed")
	rep, _ = Run(context.Background(), opt)
	if r := rep.Rows[0]; r.Status != StatusFailed || !strings.Contains(r.Reason, "node-spdy") || r.Table != "" {
		t.Fatalf("row %+v: want the failure", r)
	}
	if aside, _ := filepath.Glob(filepath.Join(opt.Out, "dos.stale-*", TableFile)); len(aside) != 1 {
		t.Errorf("the earlier table was not kept aside: %v", aside)
	}
}

func TestChosenOnSplitsCells(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "x", "# chosen-on: page=a-2019,b\n# in-sample: tuned: picked here\n"+smallFinding)
	f, err := Read(dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	for page, want := range map[string]bool{"har:/p/a-2019.har": true, "b": true, "har:/p/c-2019.har": false} {
		if got := f.Chosen(map[string]string{"page": page}); got != want {
			t.Errorf("page %s chosen %v, want %v", page, got, want)
		}
	}
	writeFile(t, dir, "z", "# chosen-on: page=pageB,pageC; shards=1; rate=10mbit/1mbit\n# in-sample: tuned: picked here\n"+smallFinding)
	f, err = Read(dir, "z")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		page, shards string
		want         bool
	}{{"pageB", "1", true}, {"pageC", "1", true}, {"pageB", "2", false}, {"pageA", "1", false}} {
		if got := f.Chosen(map[string]string{"page": c.page, "shards": c.shards, "rate": "10mbit/1mbit"}); got != c.want {
			t.Errorf("page %s shards %s chosen %v, want %v", c.page, c.shards, got, c.want)
		}
	}
	if f.Chosen(map[string]string{"page": "pageB", "shards": "1", "rate": "20mbit/2mbit"}) {
		t.Error("a rate the clause does not name was taken as chosen")
	}
	for _, bad := range []string{"page", "page=a; shards", "page=a,shards=1"} {
		writeFile(t, dir, "y", "# chosen-on: "+bad+"\n"+smallFinding)
		if _, err := Read(dir, "y"); err == nil || !strings.Contains(err.Error(), "line 1: chosen-on") {
			t.Errorf("%q: err %v, want one naming line 1's chosen-on", bad, err)
		}
	}
}

// A store that exists but holds no load yet (a run killed at its start)
// is not run, not a row of empty numbers.
func TestEmptyStoreIsNotRun(t *testing.T) {
	dir := t.TempDir()
	opt := testOptions(dir)
	writeFile(t, dir, "x", smallFinding)
	createStore(t, opt, "x")
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Rows[0]; r.Status != StatusMissing || len(r.Answer) != 0 {
		t.Fatalf("row %+v: want not run", r)
	}
}

// A run by a binary without a source revision says so before it loads
// anything: its rows would name no commit. A --no-run pass loads nothing
// and says nothing.
func TestRunWarnsWithoutARevision(t *testing.T) {
	defer func(r func() string) { revision = r }(revision)
	revision = func() string { return "unknown" }
	dir := t.TempDir()
	writeFile(t, dir, "x", strings.Replace(smallFinding, `page = "pageA"`, `page = "har:$PAGES/a.har"`, 1)) // needs pages: nothing runs
	for _, noRun := range []bool{false, true} {
		var log strings.Builder
		opt := testOptions(dir)
		opt.NoRun, opt.Log = noRun, &log
		if _, err := Run(context.Background(), opt); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(log.String(), "carries no source revision"); got == noRun {
			t.Errorf("no-run %v: warning given %v; log %q", noRun, got, log.String())
		}
	}
}

// TestWallTimeInTheReport: each current row says how long its run took,
// and the header adds them up, a walks finding's rows (one run) once; a
// row that is not current says nothing of time.
func TestWallTimeInTheReport(t *testing.T) {
	rows := []Row{
		{Finding: "a", Status: StatusCurrent, Took: 12 * time.Minute},
		{Finding: "walks", Part: "one", Status: StatusCurrent, Took: 50 * time.Minute},
		{Finding: "walks", Part: "two", Status: StatusCurrent, Took: 50 * time.Minute},
		{Finding: "b", Status: StatusMissing, Took: 9 * time.Hour},
	}
	md := string(Markdown(rows, "spdylab findings", "abc", time.Date(2026, 11, 29, 5, 0, 0, 0, time.UTC)))
	for _, want := range []string{"took 12 min", "took 50 min", "The runs behind the 2 findings with a known wall time took 1 h 02 min in all."} {
		if !strings.Contains(md, want) {
			t.Errorf("FINDINGS.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "9 h") {
		t.Errorf("a row not run shows a wall time:\n%s", md)
	}
}
