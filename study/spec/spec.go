// Package spec is the study model, apart from any file format: a study's
// conditions and their factor values and identities (hashes, fingerprint),
// its bench groups and shards, sweeps, the lower bound on a page load and
// the duration estimate. The factors are probe.Fields, the one table of a
// condition's settings. Package study/studyfile reads study files (TOML)
// and the built-in studies into a Study; package study runs one; package
// study/store keeps it (as JSON) with the results.
package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// Study is a study: its conditions, expanded from a study file's matrix
// (study/studyfile), and what they are compared by. Its JSON is what the
// store keeps of it (ModelJSON).
type Study struct {
	Name        string        `json:"name"`
	Description string        `json:"description,omitempty"`
	Note        string        `json:"note,omitempty"` // caveats printed with the report (e.g. SPDY/3.1 instead of SPDY/2)
	Runs        int           `json:"runs"`           // loads per condition
	Seed        int64         `json:"seed"`
	Timeout     time.Duration `json:"timeout_ns,omitempty"` // per load; 0 = the harness default
	// Baseline is the factor values of the base case gains are computed
	// against, e.g. {"protocol": "https"} or {"protocol": "https", "iw": "3"}.
	Baseline map[string]string `json:"baseline"`
	// Varied lists the factors that take more than one value, in matrix order.
	Varied     []string `json:"varied"`
	Conditions []Cond   `json:"conditions"`
	// Source is the study file as given (the store keeps it apart).
	Source []byte `json:"-"`
	// NoLink records that Override moved every condition onto loopback.
	NoLink bool `json:"no_link,omitempty"`
	// Pages is the corpus folder that "dir:$PAGES" stood for (--pages);
	// PagesOmitted counts the [[matrix]] blocks left out for want of one.
	Pages        string `json:"pages,omitempty"`
	PagesOmitted int    `json:"pages_omitted,omitempty"`
	// Dir is the folder relative page paths were taken from ("" = the
	// current one); the store keeps it so the stored file reads the same.
	Dir string `json:"dir,omitempty"`
	// RunsAuto, when set, adds runs to a bench group until its gains are
	// known to RunsAuto.Target, and Runs is the fewest (autoruns.go); nil
	// = Runs runs.
	RunsAuto *AutoRuns `json:"runs_auto,omitempty"`
	// Presets names the study's presets (walks.go), in file order;
	// Walks are the walks between them. Neither enters the fingerprint:
	// the conditions they expand to do.
	Presets []Preset `json:"presets,omitempty"`
	Walks   []Walk   `json:"walks,omitempty"`
	// Metric is what the study is judged on by default (probe.Metrics
	// name; "" = PLT): report, why, tune and findings use it unless told
	// --metric. It changes no load, so it is not in the fingerprint.
	Metric string `json:"metric,omitempty"`
}

// Cond is one condition of a study: the probe.Condition plus the canonical
// factor values it came from and a stable identity.
type Cond struct {
	probe.Condition `json:"condition"`
	Values          map[string]string `json:"values"` // factor name -> canonical value
	Hash            string            `json:"hash"`   // hex SHA-256 prefix of the condition's JSON
	// Role is the set the study file declared the condition in (roles.go:
	// RoleCalibration, RoleValidation; "" = none). It sits beside the
	// condition, not in it, so it moves no hash.
	Role string `json:"role,omitempty"`
}

// HashCondition is a condition's identity in the store: the hex SHA-256
// prefix of its JSON encoding.
func HashCondition(c probe.Condition) string {
	b, _ := json.Marshal(c)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Fingerprint identifies what a study measures: its name, conditions, runs
// (and whether they are automatic) and seed. Two output directories with the same fingerprint hold the same
// study, so shards can be merged and runs resumed.
func (s *Study) Fingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "name=%s runs=%d seed=%d%s\n", s.Name, s.Runs, s.Seed, s.autoFingerprint())
	hashes := make([]string, len(s.Conditions))
	for i, c := range s.Conditions {
		hashes[i] = c.Hash
	}
	sort.Strings(hashes)
	for _, x := range hashes {
		fmt.Fprintln(h, x)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// Override applies command-line overrides: runs > 0 replaces the loads per
// condition; noLink loads every condition over loopback (no emulated link).
// Both change the fingerprint, so such a run never mixes with a full one.
func (s *Study) Override(runs int, noLink bool) error {
	if runs > 0 {
		s.Runs = runs
	}
	if !noLink {
		return nil
	}
	s.NoLink = true
	seen := map[string]bool{}
	newHash := map[string]string{}
	defaults := probe.FieldDefaults()
	var out []Cond
	for _, c := range s.Conditions {
		v := map[string]string{}
		for k, x := range c.Values {
			v[k] = x
		}
		v["no_link"] = "true"
		// Loopback has no link: its factors no longer describe anything.
		for _, f := range []string{"rate", "rtt", "loss", "loss_dir", "queue"} {
			v[f] = "none"
		}
		// Values hold every factor; a stack piece at its default counts as
		// left to stack = 2012, as the study file most likely left it.
		cond, err := BuildCondition(probe.OmitUngivenPieces(v, func(f string) bool { return v[f] != defaults[f] }), s.Timeout)
		if err != nil {
			return err
		}
		nc := Cond{Condition: cond, Values: v}
		nc.Hash = HashCondition(nc.Condition)
		newHash[c.Hash] = nc.Hash
		if !seen[nc.Hash] {
			seen[nc.Hash] = true
			out = append(out, nc)
		}
	}
	s.Conditions = out
	s.remapWalks(newHash)
	var varied []string
	for _, f := range s.Varied {
		vals := map[string]bool{}
		for _, c := range out {
			vals[c.Values[f]] = true
		}
		if len(vals) > 1 {
			varied = append(varied, f)
		}
	}
	s.Varied = varied
	return nil
}
