package spec

import (
	"fmt"
	"strings"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// BuildCondition turns one point of the matrix (factor -> canonical value)
// into the probe.Condition the harness runs: probe.BuildCondition, checked
// by probe.Normalize (the rules every stage shares).
func BuildCondition(v map[string]string, timeout time.Duration) (probe.Condition, error) {
	c, err := probe.BuildCondition(v)
	if err != nil {
		return c, fmt.Errorf("condition %s: %w", DescribeValues(v), err)
	}
	c.Timeout = timeout
	c.Shards = ShardsFor(c.Page, c.Shards)
	if c, err = page.ResolveMethod(c); err != nil { // a recording's rules, stored explicitly
		return c, fmt.Errorf("condition %s: %w (leave it out with an [[exclude]] table)", DescribeValues(v), err)
	}
	n, err := probe.Normalize(c)
	if err != nil {
		return c, fmt.Errorf("condition %s: %w (leave it out with an [[exclude]] table)", DescribeValues(v), err)
	}
	if n, err = page.ResolveHosts(n.Page, n); err != nil {
		return c, fmt.Errorf("condition %s: %w (leave it out with an [[exclude]] table)", DescribeValues(v), err)
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

// DescribeValues names a matrix point for an error message (the factors
// it gives a value).
func DescribeValues(v map[string]string) string {
	var parts []string
	for _, f := range probe.Fields {
		if x, ok := v[f.Name]; ok && x != "" {
			parts = append(parts, f.Name+"="+x)
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
	for _, f := range probe.Fields {
		if v, ok := c.Values[f.Name]; ok && v != "" && f.Name != "protocol" {
			parts = append(parts, f.Name+"="+v)
		}
	}
	return strings.Join(parts, " ")
}
