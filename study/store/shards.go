package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spdylab/spdylab/study/spec"
)

// ErrOtherRevision is returned (wrapped) by CheckShards, with the checked
// ShardSet, when the shards' loads were measured by different spdylab builds.
var ErrOtherRevision = errors.New("shards were run by different spdylab builds")

// ShardSet is what a merge's shard directories hold, checked before merging
// (CheckShards).
type ShardSet struct {
	Study     *spec.Study
	N         int            // shards the study was split into (1: not split)
	Dirs      map[int]string // shard index -> its directory
	Revisions []string       // the builds that stored loads, sorted
	Loads     int            // loads in the study
	Missing   []ShardGap     // shards with loads still to do, by index
}

// ShardGap is a shard whose loads are not all done (a load is done after a
// success or a retried failure, as the runner counts).
type ShardGap struct {
	Shard spec.Shard
	Dir   string    // "" when no directory of the shard was given
	Conds []CondGap // its conditions with loads still to do, in study order
	Loads int       // loads still to do
	Rerun string    // the command that completes it (it resumes)
}

// CondGap is a condition with loads still to do.
type CondGap struct {
	spec.Cond
	Missing int // of the study's runs
}

// MissingLoads counts the loads not done in any shard.
func (s *ShardSet) MissingLoads() int {
	n := 0
	for _, g := range s.Missing {
		n += g.Loads
	}
	return n
}

// CheckShards checks that the stores in dirs are the shards of one split of
// one study, measured by one build, and finds what each still lacks: a shard
// that failed, was killed, or was never given. It changes nothing. The
// errors name the directories and the reason (ErrOtherStudy,
// ErrOtherRevision, shards split differently or given twice).
func CheckShards(dirs []string) (*ShardSet, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no shard directories given")
	}
	sc := shardScan{
		set:      &ShardSet{Dirs: map[int]string{}, N: -1},
		lastArgs: map[string]string{}, shardOf: map[string]spec.Shard{},
		revs: map[string][]string{}, attempts: map[ProbeKey]int{}, ok: map[ProbeKey]bool{},
	}
	for i, d := range dirs {
		if err := sc.read(i, dirs[0], d); err != nil {
			return nil, err
		}
	}
	if err := sc.assignShards(dirs); err != nil {
		return nil, err
	}
	sc.findGaps()
	return sc.set, sc.revisionError()
}

// shardScan is what CheckShards gathers from the shard directories.
type shardScan struct {
	set      *ShardSet
	first    Meta                  // the first directory's study
	lastArgs map[string]string     // directory -> command line of its last session
	shardOf  map[string]spec.Shard // directory -> the shard it ran
	revs     map[string][]string   // revision -> directories
	attempts map[ProbeKey]int
	ok       map[ProbeKey]bool
}

// read opens the i-th directory d and adds its study, shard, builds and
// loads to the scan; first is the directory every other is compared with.
func (sc *shardScan) read(i int, first, d string) error {
	st, m, err := openWithMeta(d)
	if err != nil {
		return err
	}
	defer st.Close()
	if i == 0 {
		sc.first = m
		if sc.set.Study, err = st.Study(); err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
	} else if m.Fingerprint != sc.first.Fingerprint {
		return mixedStudies(fmt.Sprintf("cannot merge %s and %s: %s", first, d, whyOther(sc.first, m)))
	}
	if err := sc.readShard(st, d); err != nil {
		return err
	}
	if err := sc.readRevisions(st, d); err != nil {
		return err
	}
	states, err := st.States()
	if err != nil {
		return err
	}
	for k, s := range states {
		sc.attempts[k] += s.Attempts
		sc.ok[k] = sc.ok[k] || s.OK
	}
	return nil
}

// readShard finds the one shard d's sessions ran (none: d never ran).
func (sc *shardScan) readShard(st *Store, d string) error {
	sess, err := st.Sessions()
	if err != nil {
		return err
	}
	var shards []string
	for _, p := range sess {
		if !slices.Contains(shards, p.Shard) {
			shards = append(shards, p.Shard)
		}
		sc.lastArgs[d] = p.Args
	}
	switch len(shards) {
	case 0: // never run: holds nothing, claims no shard
	case 1:
		sh := spec.Shard{I: 0, N: 1}
		if shards[0] != "" {
			if sh, err = spec.ParseShard(shards[0]); err != nil {
				return fmt.Errorf("%s: %w", d, err)
			}
		}
		sc.shardOf[d] = sh
	default:
		return fmt.Errorf("%s holds runs of shards %s: merge needs each shard in its own directory", d, strings.Join(quoteShards(shards), " and "))
	}
	return nil
}

// readRevisions notes the builds that measured d's loads.
func (sc *shardScan) readRevisions(st *Store, d string) error {
	rows, err := st.db.Query(`SELECT DISTINCT COALESCE(s.revision, '') FROM probes p JOIN sessions s ON s.id = p.session_id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			return err
		}
		sc.revs[r] = append(sc.revs[r], d)
	}
	return rows.Err()
}

// assignShards checks one split: the same N everywhere, each index at most once.
func (sc *shardScan) assignShards(dirs []string) error {
	set := sc.set
	for _, d := range dirs {
		sh, claimed := sc.shardOf[d]
		if !claimed {
			continue
		}
		if set.N < 0 {
			set.N = sh.N
		} else if sh.N != set.N {
			var other string
			for _, d2 := range dirs {
				if s2, ok := sc.shardOf[d2]; ok && s2.N == set.N {
					other = fmt.Sprintf("%s ran %s", d2, describeShard(s2))
					break
				}
			}
			return fmt.Errorf("the shards split the study differently: %s, %s ran %s; run all shards with one N", other, d, describeShard(sh))
		}
		if prev, dup := set.Dirs[sh.I]; dup && sameDir(prev, d) {
			return fmt.Errorf("%s is given twice", d)
		} else if dup {
			return fmt.Errorf("%s and %s both ran %s: give one directory per shard", prev, d, describeShard(sh))
		}
		set.Dirs[sh.I] = d
	}
	if set.N < 0 {
		set.N = 1
	}
	return nil
}

// findGaps lists, per shard, the conditions whose loads are missing (a
// load is done when one attempt succeeded or two failed, as the runner
// counts it), in study order, as the report lists them.
func (sc *shardScan) findGaps() {
	set := sc.set
	s := set.Study
	set.Loads = len(s.Conditions) * s.Runs
	order := map[string]int{}
	for i, c := range s.Conditions {
		order[c.Hash] = i
	}
	for k := 0; k < set.N; k++ {
		sh := spec.Shard{I: k, N: set.N}
		g := ShardGap{Shard: sh, Dir: set.Dirs[k]}
		for _, grp := range spec.ShardGroups(s, sh) {
			for _, c := range grp.Conds {
				miss := 0
				for run := 0; run < s.Runs; run++ {
					key := ProbeKey{CondHash: c.Hash, Run: run}
					if !sc.ok[key] && sc.attempts[key] < 2 {
						miss++
					}
				}
				if miss > 0 {
					g.Conds = append(g.Conds, CondGap{Cond: c, Missing: miss})
					g.Loads += miss
				}
			}
		}
		if g.Loads == 0 {
			continue
		}
		slices.SortFunc(g.Conds, func(a, b CondGap) int { return order[a.Hash] - order[b.Hash] })
		g.Rerun = rerunCommand(set, sc.first, sh, sc.lastArgs)
		set.Missing = append(set.Missing, g)
	}
}

// revisionError refuses loads measured by different builds (their timings
// need not compare), naming each build's directories.
func (sc *shardScan) revisionError() error {
	set := sc.set
	for r := range sc.revs {
		set.Revisions = append(set.Revisions, r)
	}
	slices.Sort(set.Revisions)
	if len(set.Revisions) <= 1 {
		return nil
	}
	var parts []string
	for _, r := range set.Revisions {
		parts = append(parts, fmt.Sprintf("%s in %s", orUnknown(r), strings.Join(sc.revs[r], ", ")))
	}
	return fmt.Errorf("%w: %s; their timings need not compare", ErrOtherRevision, strings.Join(parts, "; "))
}

// mixedStudies is an ErrOtherStudy that says only its own reason.
type mixedStudies string

func (e mixedStudies) Error() string { return string(e) }
func (e mixedStudies) Unwrap() error { return ErrOtherStudy }

// whyOther says how the study in b differs from the one in a.
func whyOther(a, b Meta) string {
	switch {
	case a.Study != b.Study:
		return fmt.Sprintf("they hold different studies (%q and %q)", a.Study, b.Study)
	case a.Runs != b.Runs:
		return fmt.Sprintf("they were run with %d and %d loads per condition (--runs)", a.Runs, b.Runs)
	case a.Seed != b.Seed:
		return fmt.Sprintf("they were run with seeds %d and %d", a.Seed, b.Seed)
	case a.NoLink != b.NoLink:
		return "one was run with --no-link, the other not"
	case a.Pages != b.Pages:
		return fmt.Sprintf("they were run over different --pages (%q and %q)", a.Pages, b.Pages)
	}
	return fmt.Sprintf("study %q has different conditions in each (edited study file or another spdylab version; fingerprints %s and %s)", a.Study, a.Fingerprint, b.Fingerprint)
}

// rerunCommand is the `spdylab run` that completes shard sh: the last
// command run into its directory with --out naming the directory as given
// to merge, or, for a shard with no directory, another shard's command with
// its index and directory changed.
func rerunCommand(set *ShardSet, m Meta, sh spec.Shard, lastArgs map[string]string) string {
	if d, ok := set.Dirs[sh.I]; ok && lastArgs[d] != "" {
		return withShard(lastArgs[d], sh, d)
	}
	for i := 0; i < set.N; i++ {
		d, ok := set.Dirs[i]
		if !ok || lastArgs[d] == "" {
			continue
		}
		out := "DIR"
		if idx := strconv.Itoa(i); strings.HasSuffix(d, idx) && !endsInDigit(strings.TrimSuffix(d, idx)) {
			out = strings.TrimSuffix(d, idx) + strconv.Itoa(sh.I)
		}
		return withShard(lastArgs[d], sh, out)
	}
	cmd := "spdylab run " + m.Study
	if m.Runs > 0 {
		cmd += " --runs " + strconv.Itoa(m.Runs)
	}
	if set.N > 1 {
		cmd += " --shard " + sh.String()
	}
	return cmd + " --out DIR"
}

// withShard rewrites a recorded `spdylab run` command line to run shard sh
// into out.
func withShard(args string, sh spec.Shard, out string) string {
	f := strings.Fields(args)
	hasShard, hasOut := false, false
	for i := 0; i < len(f); i++ {
		if !strings.HasPrefix(f[i], "-") {
			continue
		}
		name, _, inline := strings.Cut(strings.TrimLeft(f[i], "-"), "=")
		var nv string
		switch name {
		case "shard":
			nv, hasShard = sh.String(), true
		case "out":
			nv, hasOut = shellQuote(out), true
		default:
			continue
		}
		if inline {
			f[i] = f[i][:strings.Index(f[i], "=")+1] + nv
		} else if i+1 < len(f) {
			f[i+1] = nv
			i++
		}
	}
	if !hasShard && sh.N > 1 {
		f = append(f, "--shard", sh.String())
	}
	if !hasOut {
		f = append(f, "--out", shellQuote(out))
	}
	return strings.Join(f, " ")
}

func sameDir(a, b string) bool {
	a, _ = filepath.Abs(a)
	b, _ = filepath.Abs(b)
	return a == b
}

func endsInDigit(s string) bool { return s != "" && s[len(s)-1] >= '0' && s[len(s)-1] <= '9' }

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=+,@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func describeShard(sh spec.Shard) string {
	if sh.N <= 1 {
		return "the whole study"
	}
	return "shard " + sh.String()
}

func quoteShards(shards []string) []string {
	out := make([]string, len(shards))
	for i, s := range shards {
		if s == "" {
			out[i] = "(whole study)"
		} else {
			out[i] = s
		}
	}
	return out
}

func orUnknown(r string) string {
	if r == "" {
		return "an unrecorded build"
	}
	return "build " + r
}
