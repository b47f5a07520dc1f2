package studyfile

import (
	"strings"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

// A factor is one dimension of a study's matrix as a study file writes
// it: one of probe.Fields, the one definition of a condition's settings
// (their defaults, canonical spellings and help), which `spdylab load`'s
// flags share. Every value a study file gives is validated and turned into
// its canonical string so that exclusions, baselines and reports compare
// like with like ("0.01" and "1%" are the same loss).
type factor struct {
	name string
	// kind is the TOML type a value must have: "string", "int" or "bool".
	kind string
	// canon validates one value and returns its canonical spelling.
	canon func(v string) (string, error)
	// def is the value used when a study does not mention the factor; ""
	// is also "not given" for the settings that refine another (down, up,
	// loss_down, queue_up, ...).
	def  string
	help string
}

// factors lists every factor in the order the matrix is expanded (the first
// varies slowest), which is also the column order of reports.
var factors = factorsOf(probe.Fields)

func factorsOf(fields []probe.Field) []factor {
	fs := make([]factor, len(fields))
	for i, f := range fields {
		fs[i] = factor{name: f.Name, kind: f.Kind, canon: f.Canon, def: f.Default, help: f.Help}
		if f.Name == "page" {
			fs[i].canon = canonPage
		}
	}
	return fs
}

func factorByName(name string) (*factor, bool) {
	for i := range factors {
		if factors[i].name == name {
			return &factors[i], true
		}
	}
	return nil, false
}

func factorNames() string { return strings.Join(spec.FactorNames(), ", ") }

// canonPageIn validates a page spec (page.CheckSpec) with relative
// manifest paths resolved against dir, the study file's directory while it
// is parsed ("" = current directory).
func canonPageIn(dir string) func(string) (string, error) {
	return func(v string) (string, error) { return page.CheckSpec(v, dir) }
}

var canonPage = canonPageIn("")
