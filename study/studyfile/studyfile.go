// Package studyfile reads study files (TOML) and the built-in studies
// into the study model (package spec): it checks every key and value,
// naming its line, and expands the matrix of factor values into
// conditions. Only this package knows the file format; the store keeps
// the model itself, so reading results needs no TOML.
package studyfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/spdylab/spdylab/internal/units"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

// fileSpec is the TOML layout of a study file. Factor tables are decoded as
// generic maps so that every key and value can be checked by hand and named
// with its line in errors.
type fileSpec struct {
	Name        string           `toml:"name"`
	Description string           `toml:"description"`
	Note        string           `toml:"note"`
	Runs        any              `toml:"runs"` // a number, or "auto" (runs.go)
	Seed        int64            `toml:"seed"`
	Timeout     string           `toml:"timeout"`
	Metric      string           `toml:"metric"` // what the study is judged on (probe.Metrics)
	Baseline    map[string]any   `toml:"baseline"`
	Factors     map[string]any   `toml:"factors"`
	Matrix      []map[string]any `toml:"matrix"`
	Exclude     []map[string]any `toml:"exclude"`
	// Presets and walks (presets.go): [presets.NAME] tables of factor
	// values over [factors], and [[walk]] tables between them.
	Presets map[string]map[string]any `toml:"presets"`
	Walk    []walkSpec                `toml:"walk"`
}

// ParseFile reads and parses a study file; manifest paths in it are resolved
// against the file's directory.
func ParseFile(path string) (*spec.Study, error) { return parseFile(path, "") }

func parseFile(path, pages string) (*spec.Study, error) {
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &NotFoundError{Name: path, File: true}
	}
	if err != nil {
		return nil, err
	}
	s, err := ParsePages(src, filepath.Dir(path), pages)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Parse parses a study file's text. dir resolves relative manifest paths.
func Parse(src []byte, dir string) (*spec.Study, error) { return ParsePages(src, dir, "") }

// ParsePages is Parse for a study that may run on a folder of real pages:
// pages is the folder "dir:$PAGES" stands for ("" = none: the blocks that
// need it are left out, see corpus.go).
func ParsePages(src []byte, dir, pages string) (*spec.Study, error) {
	p, err := decodeStudy(src, dir, pages)
	if err != nil {
		return nil, err
	}
	base, blocks, roles, err := p.factorBlocks()
	if err != nil {
		return nil, err
	}
	if err := p.parseBaseline(); err != nil {
		return nil, err
	}
	if err := p.parseExclusions(); err != nil {
		return nil, err
	}
	for bi, b := range blocks {
		p.role, p.roleWhere = roles[bi], p.blockName(bi)
		if _, err := p.expandBlock(p.blockName(bi), b); err != nil {
			return nil, err
		}
	}
	p.role = ""
	ran, err := p.expandPresets(base)
	if err != nil {
		return nil, err
	}
	if err := checkCorpusUse(p.s, len(blocks)+ran, *p.corpusUsed, p.pages); err != nil {
		return nil, err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	if err := spec.CheckGroups(p.s); err != nil {
		return nil, err
	}
	return p.s, nil
}

// studyParser carries a study file through Parse's steps.
type studyParser struct {
	s     *spec.Study
	fs    fileSpec
	lines lineIndex
	canon func(f *factor, raw string) (string, error)
	// values is canon for factor tables, where a corpus folder stands for
	// several pages; corpusUsed says whether pages (--pages) was read.
	values     func(f *factor, raw string) ([]string, error)
	corpusUsed *bool
	pages      string
	excl       []exclusion
	used       []bool // per exclusion: matched a condition
	seen       map[string]bool
	at         map[string]int // a condition's index in s.Conditions by hash
	// role is the role of the [[matrix]] block being expanded (roles.go).
	role, roleWhere string
	// varied[factor][value]: the values each factor takes in the matrix.
	varied map[string]map[string]bool
	// profiles are the profile factor's files by label.
	profiles map[string]*spec.Profile
}

type exclusion struct {
	line  int
	match map[string][]string
}

// decodeTOML decodes a study or profile file into v; a syntax error names
// its line.
func decodeTOML(src []byte, v any) (toml.MetaData, error) {
	md, err := toml.Decode(string(src), v)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return md, fmt.Errorf("line %d: %s", pe.Position.Line, pe.Message)
		}
		return md, err
	}
	return md, nil
}

// decodeStudy reads the TOML and the top-level keys (name, runs, seed,
// timeout, ...). Relative manifest paths are taken from dir.
func decodeStudy(src []byte, dir, pages string) (*studyParser, error) {
	var fs fileSpec
	md, err := decodeTOML(src, &fs)
	if err != nil {
		return nil, err
	}
	lines := indexLines(src)
	for _, k := range md.Undecoded() {
		return nil, fmt.Errorf("line %d: unknown key %q (top-level keys: name, description, note, runs, seed, timeout, metric, baseline, factors, matrix, exclude, presets, walk; [[walk]] keys: from, to, steps, alone, factors, start, end)", lines.line(k.String()), k.String())
	}
	s := &spec.Study{Name: fs.Name, Description: fs.Description, Note: fs.Note, Seed: fs.Seed, Source: src}
	if dir != "" {
		if s.Dir, err = filepath.Abs(dir); err != nil {
			return nil, err
		}
	}
	if !regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`).MatchString(s.Name) {
		return nil, fmt.Errorf("line %d: name %q must be 1-64 letters, digits, '.', '_' or '-' (it names the output directory)", lines.line("name"), s.Name)
	}
	if err := parseRuns(s, fs.Runs); err != nil {
		return nil, fmt.Errorf("line %d: %w", lines.line("runs"), err)
	}
	if fs.Timeout != "" {
		d, err := units.ParseDurationIn(fs.Timeout, time.Millisecond, 24*time.Hour, "s")
		if err != nil {
			return nil, fmt.Errorf("line %d: timeout %q: %v", lines.line("timeout"), fs.Timeout, err)
		}
		s.Timeout = d
	}
	if fs.Metric != "" {
		m, err := probe.LookupMetric(fs.Metric)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", lines.line("metric"), err)
		}
		s.Metric = m.Name
	}
	canonPage := canonPageIn(dir)
	profiles := map[string]*spec.Profile{}
	canon := func(f *factor, raw string) (string, error) {
		switch f.name {
		case "page":
			return canonPage(raw)
		case "profile":
			return readProfileFactor(raw, s.Dir, profiles)
		case "trace_down", "trace_up":
			// Like manifest paths, taken from the study file's folder.
			if !probe.IsNone(raw) && !filepath.IsAbs(raw) && dir != "" {
				raw = filepath.Join(s.Dir, raw)
			}
		}
		return f.canon(raw)
	}
	values, used := expandingCanon(canon, dir, pages)
	return &studyParser{s: s, fs: fs, lines: lines, canon: canon, values: values, corpusUsed: used, pages: pages, profiles: profiles,
		seen: map[string]bool{}, at: map[string]int{}, varied: map[string]map[string]bool{}}, nil
}

// factorBlocks reads the factor lists: [factors] holds the defaults, every
// [[matrix]] block overrides some of them; the study is the union of the
// blocks (and of its presets and walks, presets.go). [factors] alone is a
// block only in a study without [[matrix]] blocks and presets. base is
// [factors] as read.
func (p *studyParser) factorBlocks() (base map[string][]string, blocks []map[string][]string, roles []string, err error) {
	base, err = parseFactorTable(p.fs.Factors, "factors", p.lines, p.values)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(p.fs.Matrix) == 0 {
		if len(p.fs.Presets) > 0 {
			return base, nil, nil, nil
		}
		return base, []map[string][]string{base}, []string{""}, nil
	}
	for i, m := range p.fs.Matrix {
		table := fmt.Sprintf("matrix.%d", i)
		m, role, err := blockRole(m, table, p.lines)
		if err != nil {
			return nil, nil, nil, err
		}
		over, err := parseFactorTable(m, table, p.lines, p.values)
		if errors.Is(err, page.ErrNoCorpus) {
			p.s.PagesOmitted++
			continue
		}
		if err != nil {
			return nil, nil, nil, err
		}
		merged := map[string][]string{}
		for k, v := range base {
			merged[k] = v
		}
		for k, v := range over {
			merged[k] = v
		}
		blocks, roles = append(blocks, merged), append(roles, role)
	}
	return base, blocks, roles, nil
}

// blockName names the bi-th block kept of the matrix for messages.
func (p *studyParser) blockName(bi int) string {
	if len(p.fs.Matrix) > 0 {
		return fmt.Sprintf("[[matrix]] block %d", bi+1)
	}
	return "factors"
}

// parseBaseline reads [baseline] (default: protocol = https).
func (p *studyParser) parseBaseline() error {
	p.s.Baseline = map[string]string{"protocol": probe.ProtoHTTPS}
	if p.fs.Baseline == nil {
		return nil
	}
	p.s.Baseline = map[string]string{}
	for k, raw := range p.fs.Baseline {
		f, ok := factorByName(k)
		if !ok {
			return fmt.Errorf("line %d: baseline: unknown factor %q (factors: %s)", p.lines.line("baseline."+k), k, factorNames())
		}
		str, err := scalarString(f, raw)
		if err == nil {
			str, err = p.canon(f, str)
		}
		if err != nil {
			return fmt.Errorf("line %d: baseline.%s = %v: %v", p.lines.line("baseline."+k), k, raw, err)
		}
		p.s.Baseline[k] = str
	}
	return nil
}

// parseExclusions reads the [[exclude]] tables.
func (p *studyParser) parseExclusions() error {
	for i, e := range p.fs.Exclude {
		t, err := parseFactorTable(e, fmt.Sprintf("exclude.%d", i), p.lines, p.values)
		if err != nil {
			return err
		}
		if len(t) == 0 {
			return fmt.Errorf("line %d: empty [[exclude]] table would exclude everything", p.lines.table(fmt.Sprintf("exclude.%d", i)))
		}
		p.excl = append(p.excl, exclusion{p.lines.table(fmt.Sprintf("exclude.%d", i)), t})
	}
	p.used = make([]bool, len(p.excl))
	return nil
}

// checkBlock validates one block's required and exclusive factors and
// turns down/up into the one "rate" dimension the rest of the lab uses.
func (p *studyParser) checkBlock(where string, b map[string][]string) error {
	line := p.lines.table("factors")
	if len(b["page"]) == 0 {
		return fmt.Errorf("line %d: %s: factor \"page\" is required", line, where)
	}
	if len(b["protocol"]) == 0 {
		return fmt.Errorf("line %d: %s: factor \"protocol\" is required", line, where)
	}
	if len(b["rate"]) > 0 && (len(b["down"]) > 0 || len(b["up"]) > 0) {
		return fmt.Errorf("line %d: %s: give either \"rate\" or \"down\"/\"up\", not both", line, where)
	}
	if len(b["down"]) > 0 || len(b["up"]) > 0 {
		downs, ups := orDefault(b["down"], "unlimited"), orDefault(b["up"], "unlimited")
		var pairs []string
		for _, d := range downs {
			for _, u := range ups {
				pairs = append(pairs, d+"/"+u)
			}
		}
		b["rate"] = pairs
	}
	return nil
}

// blockDims lists, in matrix order, each factor's name and values in a
// block (a factor the block does not mention takes its default).
func blockDims(b map[string][]string) (names []string, dims [][]string) {
	for _, f := range factors {
		if f.name == "down" || f.name == "up" {
			continue
		}
		vals := b[f.name]
		if len(vals) == 0 {
			def := f.def
			if f.name == "rate" {
				def = "unlimited/unlimited"
			}
			vals = []string{def}
		}
		names = append(names, f.name)
		dims = append(dims, vals)
	}
	return names, dims
}

// expandBlock adds every point of one block's matrix that no exclusion
// matches (odometer order: the last factor varies fastest) and returns the
// hashes of the block's conditions (those added before included).
func (p *studyParser) expandBlock(where string, b map[string][]string) ([]string, error) {
	if err := p.checkBlock(where, b); err != nil {
		return nil, err
	}
	names, dims := blockDims(b)
	// A factor the block names is set; the others hold defaults that
	// stack = 2012 may replace (probe.ExpandStack).
	given := func(f string) bool { _, ok := b[f]; return ok }
	idx := make([]int, len(dims))
	var hashes []string
	for {
		v := map[string]string{}
		for i, n := range names {
			v[n] = dims[i][idx[i]]
		}
		h, err := p.addPoint(v, given)
		if err != nil {
			return nil, err
		}
		if h != "" {
			hashes = append(hashes, h)
		}
		k := len(idx) - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < len(dims[k]) {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return hashes, nil
		}
	}
}

// addPoint adds the condition at matrix point v unless it is excluded or
// already there, and returns its hash ("" when excluded). given says
// which factors the study file set (the stack = 2012 pieces it did not
// set are filled in by the stack; a profile's settings count as set).
func (p *studyParser) addPoint(v map[string]string, given func(string) bool) (string, error) {
	for ei, e := range p.excl {
		if matches(e.match, v) {
			p.used[ei] = true
			return "", nil
		}
	}
	prof := p.profiles[v["profile"]]
	set := func(f string) bool {
		if prof != nil {
			if _, ok := prof.Settings[f]; ok {
				return true
			}
		}
		return given(f)
	}
	v = p.withProfile(v)
	cond, err := spec.BuildCondition(probe.OmitUngivenPieces(v, set), p.s.Timeout)
	if err != nil {
		return "", err
	}
	c := spec.Cond{Condition: cond, Values: v}
	c.Hash = spec.HashCondition(c.Condition)
	if p.seen[c.Hash] {
		return c.Hash, p.setRole(p.at[c.Hash], v, given)
	}
	p.seen[c.Hash] = true
	c.Role = p.role
	p.at[c.Hash] = len(p.s.Conditions)
	p.s.Conditions = append(p.s.Conditions, c)
	for n, val := range v {
		if p.varied[n] == nil {
			p.varied[n] = map[string]bool{}
		}
		p.varied[n][val] = true
	}
	return c.Hash, nil
}

// finish checks the matrix as a whole and records the varied factors.
func (p *studyParser) finish() error {
	s := p.s
	for i, u := range p.used {
		if !u {
			return fmt.Errorf("line %d: this [[exclude]] matches no condition (check its values)", p.excl[i].line)
		}
	}
	if len(s.Conditions) == 0 && len(p.excl) == 0 {
		return fmt.Errorf("the study has no conditions")
	}
	if len(s.Conditions) == 0 {
		return fmt.Errorf("line %d: every condition is excluded: the study's matrix is empty", p.excl[len(p.excl)-1].line)
	}
	if len(s.Conditions) > 100000 {
		return fmt.Errorf("the matrix has %d conditions; more than 100000 is surely a mistake", len(s.Conditions))
	}
	for _, f := range factors {
		if len(p.varied[f.name]) > 1 {
			s.Varied = append(s.Varied, f.name)
		}
	}
	// The baseline must exist for the gains to mean anything.
	for k, v := range s.Baseline {
		if !p.varied[k][v] {
			return fmt.Errorf("line %d: baseline %s = %q is not a value of any condition", p.lines.line("baseline."+k), k, v)
		}
	}
	return nil
}

func orDefault(v []string, def string) []string {
	if len(v) == 0 {
		return []string{def}
	}
	return v
}

// matches reports whether a point of the matrix has every value an
// exclusion names (an exclusion may list several values per factor).
func matches(ex map[string][]string, v map[string]string) bool {
	for k, want := range ex {
		got := v[k]
		switch k {
		case "down":
			got, _, _ = strings.Cut(v["rate"], "/")
		case "up":
			_, got, _ = strings.Cut(v["rate"], "/")
		}
		ok := false
		for _, w := range want {
			if w == got {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// parseFactorTable validates one table of factor -> value or list of
// values; canon turns one written value into its canonical values (a
// corpus folder stands for several pages).
func parseFactorTable(t map[string]any, table string, lines lineIndex, canon func(*factor, string) ([]string, error)) (map[string][]string, error) {
	out := map[string][]string{}
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		line := lines.line(table + "." + k)
		f, ok := factorByName(factorAlias(k))
		if !ok {
			return nil, fmt.Errorf("line %d: unknown factor %q (factors: %s)", line, k, factorNames())
		}
		if k != f.name && t[f.name] != nil {
			return nil, fmt.Errorf("line %d: give either %q or %q, not both", line, f.name, k)
		}
		var raws []any
		switch x := t[k].(type) {
		case []any:
			raws = x
			if len(x) == 0 {
				return nil, fmt.Errorf("line %d: %s: empty list of values", line, k)
			}
		default:
			raws = []any{x}
		}
		dup := map[string]bool{}
		for _, raw := range raws {
			str, err := scalarString(f, raw)
			var strs []string
			if err == nil {
				strs, err = canon(f, str)
			}
			if err != nil {
				return nil, fmt.Errorf("line %d: %s = %s: %w", line, k, show(raw), err)
			}
			for _, str := range strs {
				if dup[str] {
					if len(strs) > 1 {
						raw = str // name the page of the folder, not the folder
					}
					return nil, fmt.Errorf("line %d: %s: value %s given twice", line, k, show(raw))
				}
				dup[str] = true
				out[f.name] = append(out[f.name], str)
			}
		}
	}
	return out, nil
}

func show(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

// scalarString checks a TOML value's type against the factor's kind.
func scalarString(f *factor, raw any) (string, error) {
	switch x := raw.(type) {
	case string:
		if f.kind == "string" {
			return x, nil
		}
	case int64:
		if f.kind == "int" {
			return strconv.FormatInt(x, 10), nil
		}
	case bool:
		if f.kind == "bool" {
			return strconv.FormatBool(x), nil
		}
	}
	want := map[string]string{"string": "a string", "int": "an integer", "bool": "true or false"}[f.kind]
	return "", fmt.Errorf("must be %s (%s)", want, f.help)
}

// lineIndex maps "table.key" (and "table" for table headers) to the line
// where it appears, so errors about values can name their line.
// Arrays of tables are numbered: "matrix.0", "exclude.1".
type lineIndex map[string]int

var (
	reHeader = regexp.MustCompile(`^\s*\[\[?\s*([A-Za-z0-9_.-]+)\s*\]\]?`)
	reKey    = regexp.MustCompile(`^\s*("?)([A-Za-z0-9_./-]+)("?)\s*=`)
)

func indexLines(src []byte) lineIndex {
	idx := lineIndex{}
	count := map[string]int{}
	table := ""
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		if m := reHeader.FindStringSubmatch(l); m != nil && !strings.Contains(l[:strings.Index(l, m[1])], "=") {
			name := m[1]
			if strings.HasPrefix(strings.TrimSpace(l), "[[") {
				name = fmt.Sprintf("%s.%d", m[1], count[m[1]])
				count[m[1]]++
			} else if first, rest, ok := strings.Cut(name, "."); ok && count[first] > 0 {
				// A sub-table of the last element of an array of tables:
				// [walk.factors] under the second [[walk]] is walk.1.factors.
				name = fmt.Sprintf("%s.%d.%s", first, count[first]-1, rest)
			}
			table = name
			if _, ok := idx[table]; !ok {
				idx[table] = n
			}
			continue
		}
		if m := reKey.FindStringSubmatch(l); m != nil {
			key := m[2]
			if table != "" {
				key = table + "." + key
			}
			if _, ok := idx[key]; !ok {
				idx[key] = n
			}
		}
	}
	return idx
}

// line returns the line of a key, falling back to its table's line and
// then to line 1 so an error always names a line.
func (l lineIndex) line(key string) int {
	for k := key; k != ""; {
		if n, ok := l[k]; ok {
			return n
		}
		i := strings.LastIndex(k, ".")
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return 1
}

func (l lineIndex) table(t string) int { return l.line(t) }
