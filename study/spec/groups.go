package spec

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spdylab/spdylab/probe"
)

// Shard selects a deterministic slice of a study: groups (conditions that
// differ only in protocol) are dealt round-robin to N shards, index I
// (0-based) runs its own.
type Shard struct{ I, N int }

// ParseShard parses "i/N" with 0 <= i < N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: want i/N with 0 <= i < N, e.g. 0/4 (i is 0-based like $SLURM_ARRAY_TASK_ID and $JOB_COMPLETION_INDEX)", s)
	}
	return Shard{I: i, N: n}, nil
}

func (s Shard) String() string {
	if s.N <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Group is the conditions that share one bench: identical except for the
// protocol, so a runner can interleave protocols on the same network.
type Group struct {
	Key   string // hash of the condition without its protocol
	Conds []Cond // in the study's protocol order
}

// Groups partitions a study's conditions into bench groups in study order.
func Groups(s *Study) []Group {
	var out []Group
	at := map[string]int{}
	for _, c := range s.Conditions {
		bc := c.Condition
		bc.Proto = ""
		k := HashCondition(bc)
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, Group{Key: k})
		}
		out[i].Conds = append(out[i].Conds, c)
	}
	return out
}

// CheckGroups refuses a bench group holding a setting that applies to
// none of its protocols (probe.CheckApplies); the group's other
// protocols ignore such a setting, as a study's https baseline beside
// each value of a SPDY-only factor does.
func CheckGroups(s *Study) error {
	for _, g := range Groups(s) {
		var protos []string
		for _, c := range g.Conds {
			protos = append(protos, c.Proto)
		}
		if err := probe.CheckApplies(g.Conds[0].Condition, protos); err != nil {
			return fmt.Errorf("condition %s: %w (or leave it out with an [[exclude]] table)", g.Conds[0].Describe(), err)
		}
	}
	return nil
}

// ShardGroups returns the groups shard sh runs.
func ShardGroups(s *Study, sh Shard) []Group {
	all := Groups(s)
	if sh.N <= 1 {
		return all
	}
	// Deal by sorted key so the partition does not depend on file order.
	sort.SliceStable(all, func(i, j int) bool { return all[i].Key < all[j].Key })
	var out []Group
	for i, g := range all {
		if i%sh.N == sh.I {
			out = append(out, g)
		}
	}
	return out
}
