// Package archtest checks the import rules DEVELOPERS.md states, as one
// allow-list per package of the module: what each package may import of the
// module, and why. A package without an entry fails (a new package states its
// place when it is added), and an import its entry does not hold fails naming
// both. Only the packages' own imports are checked; tests may import helpers.
package archtest

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/spdylab/spdylab"

// rule is one package's place: the module packages it may import directly.
type rule struct {
	may []string
	why string
}

// internals every layer may use: pure helpers with no lab knowledge.
var helpers = []string{"internal/units", "internal/stats", "internal/tailbuf", "internal/ctxtime",
	"internal/atomicfile", "internal/tcpopt", "internal/certs", "internal/cpuprof", "internal/pcapfile", "internal/schedwait"}

func with(base []string, more ...string) []string {
	return append(append([]string{}, base...), more...)
}

// rules is the allow-list of every package, lowest layer first.
var rules = map[string]rule{
	// Libraries: importable alone, they know nothing of the lab.
	"spdy":                {nil, "a library: importable without the lab"},
	"h3":                  {nil, "a library: importable without the lab"},
	"sctp":                {nil, "a library: importable without the lab"},
	"netem/link":          {[]string{"probe", "internal/units"}, "the emulator core: packets in, packets out"},
	"har":                 {[]string{"probe", "internal/units"}, "HAR is read by every client and the report"},
	"probe":               {[]string{"internal/units"}, "the plain data every stage imports"},
	"conform":             {[]string{"spdy"}, "checks any SPDY server through the library alone"},
	"client":              {[]string{"spdy", "h3"}, "each protocol's client side, shared by the loader and get"},
	"examples":            {nil, "cluster examples and their tests"},
	"interop":             {nil, "tests against independent peers"},
	"internal/archtest":   {nil, "this test"},
	"internal/units":      {nil, "a pure helper"},
	"internal/stats":      {nil, "a pure helper"},
	"internal/tailbuf":    {nil, "a pure helper"},
	"internal/schedwait":  {nil, "a pure helper; reads the Go runtime's own metrics"},
	"internal/ctxtime":    {nil, "a pure helper"},
	"internal/atomicfile": {nil, "a pure helper"},
	"internal/tcpopt":     {nil, "a pure helper"},
	"internal/certs":      {[]string{"internal/atomicfile"}, "a pure helper; writes its files through the one writer"},
	"internal/cpuprof":    {[]string{"internal/atomicfile"}, "a pure helper; writes its profile through the one writer"},
	"internal/pcapfile":   {nil, "a pure helper"},
	"internal/pagedata":   {nil, "a test helper"},
	"internal/testutil":   {nil, "a test helper"},

	// The lab's stages, in the order data flows.
	"page":            {with(helpers, "probe", "har"), "pages and their methodology; no network"},
	"critpath":        {with(helpers, "probe", "har", "page"), "pure analysis of what a load recorded"},
	"netem":           {with(helpers, "probe", "netem/link"), "testbeds; knows no page, protocol or client"},
	"netem/linkcheck": {with(helpers, "probe", "netem", "netem/link"), "measures a testbed's link"},
	"server":          {with(helpers, "probe", "page", "spdy", "sctp"), "the servers a bench runs"},
	"loader":          {with(helpers, "probe", "page", "har", "client", "spdy", "h3", "sctp"), "the browser model"},
	"browser":         {with(helpers, "probe", "page", "har"), "real Chromium as a client"},
	"harness": {with(helpers, "probe", "page", "har", "critpath", "netem", "netem/linkcheck", "server",
		"loader", "browser", "spdy", "sctp"), "one condition's bench"},
	"study/spec":      {with(helpers, "probe", "page"), "the study model: no file format, runs nothing"},
	"study/studyfile": {with(helpers, "probe", "page", "study/spec"), "a file parser: asks no kernel, runs nothing"},
	"study/store":     {with(helpers, "probe", "page", "study/spec"), "the results store"},
	"study/event":     {nil, "one load's outcome, which the runner publishes to its counts, -j auto and the ETA"},
	"study/autosize":  {with(helpers, "page", "study/event"), "-j auto: load outcomes in, a size and a reason out; never the runner"},
	"study/eta":       {with(helpers, "study/event"), "the ETA: load outcomes and the runner's pick in, an estimate out; never the runner"},
	"study": {with(helpers, "probe", "page", "netem", "study/spec", "study/store", "study/event", "study/autosize", "study/eta"),
		"the runner: benches come from the caller, never the harness"},
	"report": {with(helpers, "probe", "page", "har", "critpath", "study/spec", "study/store"),
		"the report reads stores only: no runner, harness, testbed or study file format"},
	"tune": {with(helpers, "probe", "page", "netem", "study", "study/spec", "study/store", "study/studyfile"),
		"the tuner drives the runner; it shares verdicts through internal/stats, not the report"},

	"findings": {with(helpers, "probe", "report", "study", "study/spec", "study/studyfile", "study/store"),
		"runs the committed findings through the runner and shows them through the report; benches come from cmd"},

	// Programs: they may assemble anything.
	"cmd/spdylab":      {nil, "the binary: flags in, one package call, output out"},
	"bench/dos":        {nil, "a benchmark driver"},
	"bench/link":       {nil, "a benchmark driver"},
	"bench/sctp":       {nil, "a benchmark driver"},
	"bench/throughput": {nil, "a benchmark driver"},
}

// anything marks the programs, which assemble the lab and may import all of it.
var anything = map[string]bool{"cmd/spdylab": true, "bench/dos": true, "bench/link": true,
	"bench/sctp": true, "bench/throughput": true}

// ownImports lists each module package with the module packages it imports
// directly (test files apart).
func ownImports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list %s/...: %v", module, err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imps, _ := strings.Cut(line, "|")
		pkg = strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		graph[pkg] = nil
		for _, imp := range strings.Fields(imps) {
			if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				graph[pkg] = append(graph[pkg], rest)
			}
		}
	}
	return graph
}

// TestEveryPackageImportsOnlyWhatItMay: the allow-lists hold for every
// package, and every package has one.
func TestEveryPackageImportsOnlyWhatItMay(t *testing.T) {
	graph := ownImports(t)
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		r, ok := rules[pkg]
		if !ok {
			t.Errorf("%s has no allow-list: add it to internal/archtest's rules with the packages it may import and why", pkg)
			continue
		}
		if anything[pkg] {
			continue
		}
		for _, imp := range graph[pkg] {
			if !allows(r.may, imp) {
				t.Errorf("%s imports %s, which its allow-list does not hold (%s)", pkg, imp, r.why)
			}
		}
	}
	for pkg := range rules {
		if _, ok := graph[pkg]; !ok {
			t.Errorf("internal/archtest has a rule for %s, which is not a package of the module: remove it", pkg)
		}
	}
}

func allows(may []string, imp string) bool {
	for _, m := range may {
		if m == imp {
			return true
		}
	}
	return false
}

// TestAllowListsCatchABackwardImport: the check itself fails on an import
// that runs back up, naming it.
func TestAllowListsCatchABackwardImport(t *testing.T) {
	if allows(rules["study/spec"].may, "study") {
		t.Fatal("study/spec may import the runner: the model must not run anything")
	}
	if allows(rules["report"].may, "harness") || allows(rules["tune"].may, "report") {
		t.Fatal("the report may import the harness, or tune the report")
	}
	if !allows(rules["harness"].may, "netem") {
		t.Fatal("the harness may not import netem: the allow-lists are read backwards")
	}
}

// TestReportReadsNoStudyFiles: stores keep the study model, so the report
// needs no TOML parser, not even through a dependency.
func TestReportReadsNoStudyFiles(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+"/report").Output()
	if err != nil {
		t.Fatalf("go list -deps report: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(strings.ToLower(p), "toml") {
			t.Errorf("report imports %s", p)
		}
	}
}
