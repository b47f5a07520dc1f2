package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/studyfile"
)

// shardStudy has 4 bench groups (page x rtt) of 2 protocols, 2 runs: 16 loads.
const shardStudy = "name = \"sh\"\nruns = 2\nseed = 3\n[factors]\npage = [\"pageA\", \"pageB\"]\nrtt = [\"20ms\", \"100ms\"]\nprotocol = [\"https\", \"spdy/3.1\"]\n"

func parseStudy(t *testing.T, src string) *spec.Study {
	t.Helper()
	s, err := studyfile.Parse([]byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// writeShard stores shard sh of s in root/sh.shard-I as `spdylab run`
// would, built by rev: every load for which keep is true (nil: all)
// succeeds, the others are not stored.
func writeShard(t *testing.T, root string, s *spec.Study, sh spec.Shard, rev string, keep func(c spec.Cond, run int) bool) string {
	t.Helper()
	dir := filepath.Join(root, fmt.Sprintf("sh.shard-%d", sh.I))
	st, err := CreateStore(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	args := fmt.Sprintf("spdylab run sh.toml --shard %s --out out/sh.shard-%d -j 1 --no-report", sh, sh.I)
	sess, err := st.StartSession(Provenance{Started: time.Now(), Revision: rev, Shard: sh.String(), Args: args})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range spec.ShardGroups(s, sh) {
		for _, c := range g.Conds {
			for run := 0; run < s.Runs; run++ {
				if keep != nil && !keep(c, run) {
					continue
				}
				r := probe.Result{Condition: c.Condition, PLTms: 100, Started: time.Now()}
				if _, err := st.Put(Probe{CondHash: c.Hash, Run: run, SessionID: sess, Result: r}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return dir
}

func TestCheckShardsComplete(t *testing.T) {
	s := parseStudy(t, shardStudy)
	root := t.TempDir()
	dirs := []string{writeShard(t, root, s, spec.Shard{I: 0, N: 2}, "r1", nil), writeShard(t, root, s, spec.Shard{I: 1, N: 2}, "r1", nil)}
	set, err := CheckShards(dirs)
	if err != nil {
		t.Fatal(err)
	}
	if set.N != 2 || set.Loads != 16 || len(set.Missing) != 0 || set.Dirs[0] != dirs[0] || set.Dirs[1] != dirs[1] {
		t.Errorf("N %d, %d loads, missing %+v, dirs %v", set.N, set.Loads, set.Missing, set.Dirs)
	}
}

// A shard killed half-way and a shard never run are named with what they
// lack and the command that completes them.
func TestCheckShardsNamesMissingAndRerun(t *testing.T) {
	s := parseStudy(t, shardStudy)
	root := t.TempDir()
	var cut spec.Cond
	d0 := writeShard(t, root, s, spec.Shard{I: 0, N: 3}, "r1", nil)
	d1 := writeShard(t, root, s, spec.Shard{I: 1, N: 3}, "r1", func(c spec.Cond, run int) bool {
		if cut.Hash == "" && run == 1 {
			cut = c
		}
		return run == 0 || c.Hash != cut.Hash
	})
	set, err := CheckShards([]string{d0, d1})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Missing) != 2 {
		t.Fatalf("missing %+v, want shards 1 and 2", set.Missing)
	}
	g := set.Missing[0]
	if g.Shard != (spec.Shard{I: 1, N: 3}) || g.Dir != d1 || g.Loads != 1 || len(g.Conds) != 1 || g.Conds[0].Hash != cut.Hash || g.Conds[0].Missing != 1 {
		t.Errorf("killed shard: %+v", g)
	}
	if want := "spdylab run sh.toml --shard 1/3 --out " + d1 + " -j 1 --no-report"; g.Rerun != want {
		t.Errorf("rerun %q, want %q", g.Rerun, want)
	}
	g = set.Missing[1]
	want2 := 2 * 2 * len(spec.ShardGroups(s, spec.Shard{I: 2, N: 3})) // 2 protocols x 2 runs per group
	if g.Shard != (spec.Shard{I: 2, N: 3}) || g.Dir != "" || g.Loads != want2 {
		t.Errorf("absent shard: %+v, want %d loads", g, want2)
	}
	if want := "spdylab run sh.toml --shard 2/3 --out " + filepath.Join(root, "sh.shard-2") + " -j 1 --no-report"; g.Rerun != want {
		t.Errorf("rerun %q, want %q", g.Rerun, want)
	}
	if set.MissingLoads() != 1+want2 {
		t.Errorf("MissingLoads %d", set.MissingLoads())
	}
}

// A load that failed twice is done, as the runner counts it.
func TestCheckShardsRetriedFailureIsDone(t *testing.T) {
	s := parseStudy(t, "name = \"sh\"\nruns = 1\n[factors]\npage = \"pageA\"\nprotocol = \"https\"\n")
	dir := filepath.Join(t.TempDir(), "whole")
	st, err := CreateStore(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Conditions[0]
	for att := 0; att < 2; att++ {
		r := probe.Result{Condition: c.Condition, Failed: true, Error: "timeout"}
		if _, err := st.Put(Probe{CondHash: c.Hash, Attempt: att, Result: r}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	set, err := CheckShards([]string{dir})
	if err != nil || len(set.Missing) != 0 || set.N != 1 {
		t.Errorf("err %v, missing %+v, N %d", err, set.Missing, set.N)
	}
}

func TestCheckShardsRefuses(t *testing.T) {
	s := parseStudy(t, shardStudy)
	other := parseStudy(t, strings.Replace(shardStudy, "runs = 2", "runs = 1", 1))
	root := t.TempDir()
	sub := func(name string) string { return filepath.Join(root, name) }
	a := writeShard(t, sub("a"), s, spec.Shard{I: 0, N: 2}, "r1", nil)
	b := writeShard(t, sub("b"), s, spec.Shard{I: 1, N: 2}, "r2", nil)
	c := writeShard(t, sub("c"), other, spec.Shard{I: 1, N: 2}, "r1", nil)
	d := writeShard(t, sub("d"), s, spec.Shard{I: 1, N: 3}, "r1", nil)
	e := writeShard(t, sub("e"), s, spec.Shard{I: 0, N: 2}, "r1", nil)
	for _, tc := range []struct {
		name string
		dirs []string
		is   error
		want []string
	}{
		{"other build", []string{a, b}, ErrOtherRevision, []string{"build r1 in " + a, "build r2 in " + b}},
		{"other runs", []string{a, c}, ErrOtherStudy, []string{a, c, "2 and 1 loads per condition"}},
		{"other split", []string{a, d}, nil, []string{"split the study differently", a + " ran shard 0/2", d + " ran shard 1/3"}},
		{"same shard twice", []string{a, e}, nil, []string{a, e, "both ran shard 0/2"}},
		{"same directory twice", []string{a, a}, nil, []string{a + " is given twice"}},
	} {
		_, err := CheckShards(tc.dirs)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.is)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", tc.name, err, w)
			}
		}
	}
}
