package spec

import (
	"fmt"
	"strings"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// A factor is one dimension of a study's matrix: one of probe.Fields, the
// one definition of a condition's settings (their defaults, canonical
// spellings and help), which `spdylab load`'s flags share. Every value a
// study file gives is validated and turned into its canonical string so
// that exclusions, baselines and reports compare like with like ("0.01"
// and "1%" are the same loss).
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

func factorNames() string { return strings.Join(FactorNames(), ", ") }

// canonPageIn validates a page spec (page.CheckSpec) with relative
// manifest paths resolved against dir, the study file's directory while it
// is parsed ("" = current directory).
func canonPageIn(dir string) func(string) (string, error) {
	return func(v string) (string, error) { return page.CheckSpec(v, dir) }
}

var canonPage = canonPageIn("")

// buildCondition turns one point of the matrix (factor -> canonical value)
// into the probe.Condition the harness runs: probe.BuildCondition, checked
// by probe.Normalize (the rules every stage shares).
func buildCondition(v map[string]string, timeout time.Duration) (probe.Condition, error) {
	c, err := probe.BuildCondition(v)
	if err != nil {
		return c, fmt.Errorf("condition %s: %w", describeValues(v), err)
	}
	c.Timeout = timeout
	c.Shards = ShardsFor(c.Page, c.Shards)
	n, err := probe.Normalize(c)
	if err != nil {
		return c, fmt.Errorf("condition %s: %w (leave it out with an [[exclude]] table)", describeValues(v), err)
	}
	return n, nil
}

// ShardsFor is a condition's shard count: a recorded or manifest page
// brings its hosts, so it gets 0 (the page's own count, as `spdylab load`
// without --shards), whatever shards says.
func ShardsFor(pageSpec string, shards int) int {
	if page.HasOwnHosts(pageSpec) {
		return 0
	}
	return shards
}

// describeValues names a matrix point for an error message (the factors
// it gives a value).
func describeValues(v map[string]string) string {
	parts := make([]string, 0, len(factors))
	for _, f := range factors {
		if x, ok := v[f.name]; ok && x != "" {
			parts = append(parts, f.name+"="+x)
		}
	}
	return strings.Join(parts, " ")
}

// FactorNames lists every factor a study file may use, in matrix order.
func FactorNames() []string { return probe.FieldNames() }

// Describe names a condition by its factor values without the protocol,
// for messages about its bench.
func (c Cond) Describe() string {
	var parts []string
	for _, f := range factors {
		if v, ok := c.Values[f.name]; ok && v != "" && f.name != "protocol" {
			parts = append(parts, f.name+"="+v)
		}
	}
	return strings.Join(parts, " ")
}
