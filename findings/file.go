// Package findings runs the lab's headline results from the study files
// committed beside it (findings/*.toml) and writes FINDINGS.md and
// findings.html: one row per finding with its answer, interval, loads per
// cell, whether it is in-sample, what explains it and where it was run.
//
// The files are read from disk, not embedded: a finding's profile and its
// recordings are paths the study file resolves against its own folder, and
// the DoS finding runs a driver from the repository's source, so the
// command runs from the repository root on the files committed there.
package findings

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/spdylab/spdylab/report"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/studyfile"
)

// DefaultDir is where the committed findings files live, from the
// repository root.
const DefaultDir = "findings"

// Kinds of finding: a study run through the runner, or a benchmark driver
// whose output is a table (the DoS memory table is not a study of page
// loads).
const (
	KindStudy  = "study"
	KindDriver = "driver"
)

// Pages says whether a finding runs on recordings (--pages).
const (
	PagesNone     = ""
	PagesRequired = "required"
)

// ErrNeedsPages is returned for a finding over recordings when no folder
// of recordings was given: the row says so instead of a number.
var ErrNeedsPages = errors.New("needs --pages DIR (the shared recordings are never committed)")

// File is one findings file: its comment header and its body.
type File struct {
	Name     string // the file's name without .toml
	Path     string
	Question string
	Loads    string // loads per cell and why that many
	Sample   string // out-of-sample, in-sample or held-out, with why
	// InSample names variants (by a word of their label, e.g. a
	// profile's name) that were chosen on these cells, and why.
	InSample []InSample
	// ChosenOn narrows InSample to the cells whose factors each hold one
	// of their values ("# chosen-on: page=a,b; shards=1"): the others are
	// held out. Empty: every cell.
	ChosenOn []ChosenOn
	// LookedAt names cells an in-sample variant was not chosen on but
	// whose breakdown was read to find a mechanism it now has, one set of
	// cells per "# looked-at:" line (its clauses as chosen-on's): they
	// are no longer held out, nor chosen on, and are counted apart.
	LookedAt [][]ChosenOn
	// AlsoAgainst names further baselines, one "# also-against:
	// FACTOR=VALUE,..." line each (report's --baseline syntax): the
	// variants' gains are shown against each as well, from the same loads
	// (HTTPS given the variants' transport knobs, say).
	AlsoAgainst []map[string]string
	Pages       string // PagesNone or PagesRequired
	// By names the factors whose values the question compares ("# by:
	// rate"): a variant's cells are summed up per value, not all together.
	By []string
	// Contrast names factors of two values whose effect on the gain the
	// question is about ("# contrast: hosts"): each variant's gain at the
	// second value over its gain at the first, with an interval.
	Contrast []string
	// Trend names factors along which the question follows the gain
	// ("# trend: rate"): each value's mean gain over its cells.
	Trend []string
	Kind  string
	Src   []byte
	Sum   string // SHA-256 of Src: what the stored stamp is checked against
	// Driver and Args: a driver finding's program (a folder of the
	// repository, run with go run) and its arguments.
	Driver string
	Args   []string
}

// InSample is one "# in-sample: WORD: why" header line.
type InSample struct{ Word, Why string }

// Names lists the findings files in dir (their names without .toml),
// sorted.
func Names(dir string) ([]string, error) {
	m, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("%s holds no findings file (*.toml): run from the repository root or give --dir", dir)
	}
	var out []string
	for _, p := range m {
		out = append(out, strings.TrimSuffix(filepath.Base(p), ".toml"))
	}
	sort.Strings(out)
	return out, nil
}

// Read reads and checks dir/NAME.toml's header (and a driver's body). A
// study's body is parsed by Study, which needs the recordings folder.
func Read(dir, name string) (*File, error) {
	path := filepath.Join(dir, name+".toml")
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(name, path, src)
}

// parse reads a findings file's text (Read without the disk).
func parse(name, path string, src []byte) (*File, error) {
	sum := sha256.Sum256(src)
	f := &File{Name: name, Path: path, Src: src, Sum: hex.EncodeToString(sum[:]), Kind: KindStudy}
	if err := f.readHeader(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Kind == KindDriver {
		if err := f.readDriver(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return f, nil
}

// readHeader reads the "# key: value" lines before the first line that is
// not a comment; a line "#   more" continues the previous key's value.
func (f *File) readHeader() error {
	vals := map[string]*string{"question": &f.Question, "loads": &f.Loads, "sample": &f.Sample, "pages": &f.Pages, "kind": &f.Kind}
	lists := map[string]*[]string{"by": &f.By, "contrast": &f.Contrast, "trend": &f.Trend}
	var last *string
	sc := bufio.NewScanner(bytes.NewReader(f.Src))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if !strings.HasPrefix(line, "#") {
			break
		}
		text := strings.TrimPrefix(line, "#")
		if strings.HasPrefix(text, "   ") && last != nil {
			*last += " " + strings.TrimSpace(text)
			continue
		}
		last = nil
		key, val, ok := strings.Cut(strings.TrimSpace(text), ":")
		if !ok || strings.ContainsAny(key, " \t") {
			continue // free comment
		}
		val = strings.TrimSpace(val)
		if lists[key] != nil {
			list := lists[key]
			for _, b := range strings.Split(val, ",") {
				if b = strings.TrimSpace(b); b != "" {
					*list = append(*list, b)
				}
			}
			continue
		}
		if key == "chosen-on" || key == "looked-at" {
			clauses, err := readClauses(key, val)
			if err != nil {
				return fmt.Errorf("line %d: %w", n, err)
			}
			if key == "chosen-on" {
				f.ChosenOn = append(f.ChosenOn, clauses...)
			} else {
				f.LookedAt = append(f.LookedAt, clauses)
			}
			continue
		}
		if key == "also-against" {
			base, err := report.ParseBaseline(val)
			if err == nil && len(base) == 0 {
				err = errors.New("names no baseline: want FACTOR=VALUE[,FACTOR=VALUE...]")
			}
			if err != nil {
				return fmt.Errorf("line %d: also-against: %w", n, err)
			}
			f.AlsoAgainst = append(f.AlsoAgainst, base)
			continue
		}
		if key == "in-sample" {
			word, why, _ := strings.Cut(val, ":")
			f.InSample = append(f.InSample, InSample{Word: strings.TrimSpace(word), Why: strings.TrimSpace(why)})
			continue
		}
		p := vals[key]
		if p == nil {
			return fmt.Errorf("line %d: header key %q: want one of question, loads, sample, in-sample, chosen-on, looked-at, also-against, by, contrast, trend, pages, kind", n, key)
		}
		*p, last = val, p
	}
	for _, k := range []string{"question", "loads", "sample"} {
		if *vals[k] == "" {
			return fmt.Errorf("the header has no \"# %s:\" line (a finding says its question, its loads per cell and why, and whether it is in-sample)", k)
		}
	}
	if f.Pages != PagesNone && f.Pages != PagesRequired {
		return fmt.Errorf("header pages: %q: want %q or no pages line", f.Pages, PagesRequired)
	}
	if f.Kind != KindStudy && f.Kind != KindDriver {
		return fmt.Errorf("header kind: %q: want %s or %s", f.Kind, KindStudy, KindDriver)
	}
	return nil
}

// ChosenOn is one clause of a chosen-on or looked-at line: a factor and
// the values of it the cells hold.
type ChosenOn struct {
	Factor string
	Values map[string]bool
}

// readClauses reads a key's "FACTOR=v1,v2,...; FACTOR=v,...".
func readClauses(key, val string) ([]ChosenOn, error) {
	var clauses []ChosenOn
	for _, clause := range strings.Split(val, ";") {
		factor, list, ok := strings.Cut(clause, "=")
		factor = strings.TrimSpace(factor)
		if !ok || factor == "" || strings.TrimSpace(list) == "" || strings.ContainsAny(list, "=") {
			return nil, fmt.Errorf("%s: %q: want FACTOR=VALUE,VALUE,... (clauses apart by ;)", key, val)
		}
		c := ChosenOn{Factor: factor, Values: map[string]bool{}}
		for _, v := range strings.Split(list, ",") {
			if v = strings.TrimSpace(v); v != "" {
				c.Values[v] = true
			}
		}
		clauses = append(clauses, c)
	}
	return clauses, nil
}

// Chosen tells whether a cell (its factor values) is one an in-sample
// variant was chosen on: every cell unless chosen-on narrows them, and
// then a cell whose every named factor holds one of its values.
func (f *File) Chosen(values map[string]string) bool {
	return holds(f.ChosenOn, values)
}

// Looked tells whether a cell not chosen on is one a looked-at line
// names.
func (f *File) Looked(values map[string]string) bool {
	for _, cells := range f.LookedAt {
		if holds(cells, values) {
			return true
		}
	}
	return false
}

// holds tells whether a cell's every factor a clause names holds one of
// the clause's values.
func holds(clauses []ChosenOn, values map[string]string) bool {
	for _, c := range clauses {
		v := values[c.Factor]
		if c.Factor == "page" { // a recording is named by its file, not its path
			v = strings.TrimSuffix(shortPage(v), ".har")
		}
		if !c.Values[v] && !c.Values[v+".har"] {
			return false
		}
	}
	return true
}

// driverFile is a driver finding's body.
type driverFile struct {
	Driver string   `toml:"driver"`
	Args   []string `toml:"args"`
}

func (f *File) readDriver() error {
	var d driverFile
	md, err := toml.Decode(string(f.Src), &d)
	if err != nil {
		return err
	}
	if u := md.Undecoded(); len(u) > 0 {
		return fmt.Errorf("unknown key %q (a driver finding has driver and args)", u[0].String())
	}
	if d.Driver == "" || strings.Contains(d.Driver, "..") || filepath.IsAbs(d.Driver) {
		return fmt.Errorf("driver %q: want a folder of the repository, e.g. bench/dos", d.Driver)
	}
	f.Driver, f.Args = d.Driver, d.Args
	return nil
}

// Study parses a study finding with pages as its recordings folder ("" =
// none: ErrNeedsPages for a finding that needs it) and runs > 0 as the
// loads per cell instead of the file's.
func (f *File) Study(pages string, runs int) (*spec.Study, error) {
	if f.Kind != KindStudy {
		return nil, fmt.Errorf("%s: a %s finding is not a study", f.Path, f.Kind)
	}
	uses := bytes.Contains(f.Src, []byte("$PAGES"))
	if pages == "" && (f.Pages == PagesRequired || uses) {
		return nil, ErrNeedsPages
	}
	corpus := ""
	if uses {
		corpus = pages
	}
	s, err := studyfile.ParsePages(f.Src, filepath.Dir(f.Path), corpus)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	if err := s.Override(runs, false); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	return s, nil
}

// SampleOf says whether a variant's numbers are in-sample: the header's
// in-sample line whose word its label holds, else the file's sample line.
func (f *File) SampleOf(label string) string {
	if s := f.inSample(label); s != nil {
		return "in-sample: " + s.Why
	}
	return f.Sample
}

func (f *File) inSample(label string) *InSample {
	for i, s := range f.InSample {
		if strings.Contains(label, s.Word) {
			return &f.InSample[i]
		}
	}
	return nil
}
