package findings

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/report"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// Row statuses. Only a current or partial row shows numbers.
const (
	StatusCurrent    = "current"
	StatusPartial    = "partial"     // some loads are missing: shown, marked
	StatusMissing    = "not run"     // no store yet
	StatusStale      = "stale"       // the store does not match the file
	StatusFailed     = "failed"      // the last run failed: its error, no number
	StatusBroken     = "broken"      // the file does not parse
	StatusNeedsPages = "needs pages" // over recordings, and none were given
)

// Row is one finding (or one walk of a walks finding) in FINDINGS.md.
type Row struct {
	Finding, Part          string // Part: the walk, for a walks finding
	Question, Loads        string
	Sample                 string   // the file's; Answer lines may say in-sample
	Status, Reason, Note   string   // Reason: why it is not current
	Answer, Explain        []string // one line per variant or cell
	LateShift              string
	Command, Store         string
	Commits, Date, Machine string
	Table                  string // a driver finding's output (Markdown)
	// Metric is what its gains are of (the file's metric key; PLT by
	// default), as the report titles it.
	Metric string
	// Took is the wall time of the run that finished the store (its
	// stamp's start to finish; 0 when unknown).
	Took time.Duration
}

// Shown tells whether the row carries numbers.
func (r Row) Shown() bool { return r.Status == StatusCurrent || r.Status == StatusPartial }

// studyRows reads a study finding's store (writing its report.html on the
// way) into its rows.
func studyRows(f *File, s *spec.Study, dir string, base Row) []Row {
	if !hasStore(dir) {
		base.Status, base.Reason = StatusMissing, "nothing stored yet: run "+base.Command
		return []Row{base}
	}
	st, err := readStamp(dir)
	if err != nil || st != nil && st.State == StateFailed {
		base.Status = StatusFailed
		if err != nil {
			base.Reason = err.Error()
		} else {
			base.Reason = "the last run failed: " + st.Error
		}
		return []Row{base}
	}
	a, err := report.Build(dir)
	if err != nil {
		base.Status, base.Reason = StatusFailed, "its report: "+err.Error()
		return []Row{base}
	}
	base.Status = StatusCurrent
	base.Metric = a.MetricTitle()
	base.Took = st.took()
	got, want := storedLoads(a), len(s.Conditions)*s.Runs
	if got == 0 {
		base.Status, base.Reason = StatusMissing, "no load stored yet: run "+base.Command
		return []Row{base}
	}
	if got < want {
		base.Status, base.Reason = StatusPartial, fmt.Sprintf("%d of %d loads stored: run %s to finish it", got, want, base.Command)
	}
	if failed, first := failedLoads(a); failed > 0 {
		if failed == storedLoads(a) {
			base.Status, base.Reason = StatusFailed, fmt.Sprintf("every one of its %d stored loads failed: %s", failed, first)
			return []Row{base}
		}
		base.Note = fmt.Sprintf("%d loads failed twice and are left out (first error: %s)", failed, first)
	}
	base.LateShift = lateText(a)
	base.Commits, base.Date, base.Machine = provenance(a.Sessions)
	if n := strings.Count(base.Commits, ", ") + 1; n > 1 {
		// A resumed run keeps its loads whatever commit made them; the
		// row says so rather than claim one commit's numbers.
		base.Note = strings.TrimPrefix(base.Note+"; ", "; ") + fmt.Sprintf("its loads come from %d commits (%s): a run resumed across commits", n, base.Commits)
	}
	switch {
	case len(a.Walks) > 0:
		return walkRows(a, base)
	case len(a.FidelitySums) > 0:
		base.Answer, base.Explain = fidelityAnswer(a)
	default:
		base.Answer, base.Explain = variantAnswers(a, f)
		base.Answer = append(base.Answer, alsoAgainst(f, dir)...)
	}
	if len(base.Answer) == 0 {
		base.Answer = []string{"no variant has a gain yet (too few successful loads)"}
	}
	return []Row{base}
}

// alsoAgainst is the variants' answer lines against each further
// baseline the header names, from the same loads; a baseline the store
// cannot take is named with why.
func alsoAgainst(f *File, dir string) []string {
	var lines []string
	for _, base := range f.AlsoAgainst {
		a, err := analyzeAgainst(dir, base)
		if err != nil {
			lines = append(lines, "also against "+report.FormatBaseline(base)+": "+err.Error())
			continue
		}
		answer, _ := variantAnswers(a, f)
		lines = append(lines, answer...)
	}
	return lines
}

// analyzeAgainst analyses dir's store with base as the baseline, reading
// only: the store's own report files keep the study's baseline.
func analyzeAgainst(dir string, base map[string]string) (*report.Analysis, error) {
	st, err := store.OpenReader(dir)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return report.AnalyzeWith(st, report.Options{Baseline: base})
}

// storedLoads counts the (condition, run) keys that have an attempt.
func storedLoads(a *report.Analysis) int {
	n := 0
	for _, c := range a.Conds {
		n += c.Loads
	}
	return n
}

// failedLoads counts the keys without a successful attempt, with the
// first error.
func failedLoads(a *report.Analysis) (int, string) {
	n, first := 0, ""
	for _, c := range a.Conds {
		n += c.Failed
		if first == "" && len(c.Errors) > 0 {
			first = c.Errors[0]
		}
	}
	return n, first
}

// lateText is the emulator's late-load shift as the report judges it.
func lateText(a *report.Analysis) string {
	if a.LateLoads == 0 {
		return fmt.Sprintf("no load of %d ran a late emulator", a.OKLoads)
	}
	if a.LateShift.Pairs < 2 {
		return fmt.Sprintf("%d of %d loads late; too few on-time loads beside them to tell a shift", a.LateLoads, a.OKLoads)
	}
	s := fmt.Sprintf("%d of %d loads late; their PLTs %s from their conditions' on-time loads", a.LateLoads, a.OKLoads, a.LateShift)
	switch {
	case !a.LateShift.Covers():
		s = "LATENESS UNJUDGED (over a tenth of the late loads unpaired, their conditions late throughout): " + s
	case a.LateShift.Pairs >= report.LateJudgeMin && a.LateShift.Beyond(report.LateShiftLimit):
		s = "LATENESS MOVED THE RESULTS: " + s
	}
	return s
}

// provenance is the commits, date and machine of a store's sessions.
func provenance(sess []store.Provenance) (commits, date, machine string) {
	var revs []string
	seen := map[string]bool{}
	for _, p := range sess {
		r := shortRev(p.Revision)
		if !seen[r] {
			seen[r] = true
			revs = append(revs, r)
		}
	}
	commits = strings.Join(revs, ", ")
	if len(sess) > 0 {
		last := sess[len(sess)-1]
		date = last.Started.UTC().Format("2006-01-02 15:04 UTC")
		m := last.Machine
		machine = fmt.Sprintf("%s (%d CPUs, %s)", last.Hostname, m.CPUs, m.CPUModel)
	}
	return commits, date, machine
}

func shortRev(r string) string {
	if len(r) > 12 && !strings.Contains(r[:12], "+") {
		return r[:12] + strings.TrimLeft(r[12:], "0123456789abcdef")
	}
	return r
}

// variantAnswers is one line per variant: its gain over the baseline with
// the 95% interval (one cell), or its cells' gains and verdicts (many),
// and what its critical path says.
func variantAnswers(a *report.Analysis, f *File) (answer, explain []string) {
	why := report.Why(a, "")
	var names []string
	byName := map[string][]*report.Condition{}
	for _, c := range a.Conds {
		if c.IsBaseline || c.BaseHash == "" {
			continue
		}
		n := variantName(c)
		if byName[n] == nil {
			names = append(names, n)
		}
		byName[n] = append(byName[n], c)
	}
	plts := a.Values
	for _, n := range names {
		answer = append(answer, trendLines(a, f, n, byName[n], plts)...)
		answer = append(answer, contrastLines(a, f, n, byName[n], plts)...)
		for _, group := range groupCells(f.By, byName[n]) {
			g := groupName(f.By, group[0])
			answer = append(answer, sampleLines(a, f, n, g, group)...)
			if e := explainLine(n+g, group, why); e != "" {
				explain = append(explain, e)
			}
		}
	}
	return answer, explain
}

// variantName is a variant's label with its profile: a profile may set
// nothing the label shows (pacing, push), and its rows must not mix with
// the protocol's defaults.
func variantName(c *report.Condition) string {
	if p := c.Values["profile"]; p != "" {
		return c.Label + " profile=" + p
	}
	return c.Label
}

// groupCells splits a variant's cells by the values of the factors the
// question compares, in the order the values first appear.
func groupCells(by []string, cells []*report.Condition) [][]*report.Condition {
	if len(by) == 0 {
		return [][]*report.Condition{cells}
	}
	var groups [][]*report.Condition
	index := map[string]int{}
	for _, c := range cells {
		var key []string
		for _, f := range by {
			key = append(key, c.Values[f])
		}
		k := strings.Join(key, "\x00")
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], c)
	}
	return groups
}

// groupName is " at f=v ..." for a group of cells ("" without groups).
func groupName(by []string, c *report.Condition) string {
	var parts []string
	for _, f := range by {
		parts = append(parts, f+"="+c.Values[f])
	}
	if len(parts) == 0 {
		return ""
	}
	return " at " + strings.Join(parts, " ")
}

// sampleLines is a variant's gain line, split into the cells it was
// chosen on (in-sample) and the others (held out) when the header says
// which cells those were.
func sampleLines(a *report.Analysis, f *File, label, group string, cells []*report.Condition) []string {
	if f.inSample(label) == nil || len(f.ChosenOn) == 0 {
		return []string{gainLine(a, label, group, cells) + " (" + f.SampleOf(label) + ")"}
	}
	var in, looked, out []*report.Condition
	for _, c := range cells {
		switch {
		case f.Chosen(c.Values):
			in = append(in, c)
		case f.Looked(c.Values):
			looked = append(looked, c)
		default:
			out = append(out, c)
		}
	}
	var lines []string
	if len(in) > 0 {
		lines = append(lines, gainLine(a, label, group, in)+" (in-sample, the cells it was chosen on: "+f.inSample(label).Why+")")
	}
	if len(looked) > 0 {
		lines = append(lines, gainLine(a, label, group, looked)+" (looked at: not chosen on, but their breakdown was read to find a mechanism it has)")
	}
	if len(out) > 0 {
		lines = append(lines, gainLine(a, label, group, out)+" (held-out: cells it was not chosen on)")
	}
	return lines
}

// gainLine says a variant's gain against the baseline.
func gainLine(a *report.Analysis, label, group string, cells []*report.Condition) string {
	if len(cells) <= 4 {
		vary := varying(cells)
		var parts []string
		for _, c := range cells {
			parts = append(parts, fmt.Sprintf("%s%s (%s %s vs %s)", where(a, c, vary), gainVerdict(c),
				a.Metric.Title, ms(c.Value), ms(a.ByHash[c.BaseHash].Value)))
		}
		return label + " vs " + a.BaseLabel + group + ": " + strings.Join(parts, "; ")
	}
	var won, lost, undecided, tooFew int
	var gains []float64
	for _, c := range cells {
		switch c.Significance {
		case report.Won:
			won++
		case report.Lost:
			lost++
		case report.Undecided:
			undecided++
		case report.TooFewLoads:
			tooFew++
		}
		if c.Gain > 0 && !math.IsNaN(c.Gain) {
			gains = append(gains, c.Gain)
		}
	}
	if len(gains) == 0 {
		return fmt.Sprintf("%s vs %s%s: %d cells, none with a gain yet", label, a.BaseLabel, group, len(cells))
	}
	sort.Float64s(gains)
	s := fmt.Sprintf("%s vs %s%s: %d cells, geometric mean gain %s (cells %.2f to %.2f); by their 95%% intervals %d won, %d lost, %d undecided",
		label, a.BaseLabel, group, len(cells), geoMean(a, cells), gains[0], gains[len(gains)-1], won, lost, undecided)
	if tooFew > 0 {
		s += fmt.Sprintf(", %d with too few loads for an interval", tooFew)
	}
	return s
}

// gainVerdict is the gain, its interval and what the interval says.
func gainVerdict(c *report.Condition) string {
	if c.Significance == report.TooFewLoads || c.Significance == report.NoGain {
		return gainCI(c)
	}
	return gainCI(c) + " " + string(c.Significance)
}

func gainCI(c *report.Condition) string {
	if math.IsNaN(c.Gain) {
		return "no gain (no successful load on a side)"
	}
	if c.GainCI.TooFew || math.IsNaN(c.GainCI.Lo) {
		return fmt.Sprintf("%.2f (too few loads for an interval)", c.Gain)
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", c.Gain, c.GainCI.Lo, c.GainCI.Hi)
}

// ms is a median of the chosen metric ("?" without a value).
func ms(s report.Stats) string {
	if s.N == 0 || math.IsNaN(s.Median) {
		return "?"
	}
	return fmt.Sprintf("%.0f ms", s.Median)
}

// geoMean is the cells' geometric mean gain with its stratified
// bootstrap interval (stats.GeoMeanRatio) over each cell's successful
// loads, one per run as the report counts them.
func geoMean(a *report.Analysis, cells []*report.Condition) string {
	plts := a.Values
	var pairs []stats.Pair
	for _, c := range cells {
		pairs = append(pairs, stats.Pair{Num: plts[c.BaseHash], Den: plts[c.Hash]})
	}
	r := stats.GeoMeanRatio(pairs)
	if r.TooFew || math.IsNaN(r.Lo) {
		return fmt.Sprintf("%.2f (too few loads for an interval)", r.Ratio)
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", r.Ratio, r.Lo, r.Hi)
}

// where is "page=pageA loss=1%: ", a cell's values of the factors that
// vary (but the baseline's, which the variant's label holds), or "".
func where(a *report.Analysis, c *report.Condition, vary map[string]bool) string {
	var parts []string
	for _, f := range a.Study.Varied {
		if _, base := a.Study.Baseline[f]; base || !vary[f] {
			continue
		}
		v := c.Values[f]
		if f == "page" {
			v = shortPage(v)
		}
		parts = append(parts, f+"="+v)
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, " ") + ": "
}

// varying are the factors whose values differ between the cells: what
// tells one cell of a line from another (the rest is in the line's
// variant and group).
func varying(cells []*report.Condition) map[string]bool {
	out := map[string]bool{}
	for _, c := range cells[1:] {
		for f, v := range c.Values {
			if cells[0].Values[f] != v {
				out[f] = true
			}
		}
	}
	return out
}

// shortPage names a recording by its file, not its absolute path.
// shortPage shortens a page's path to its file name, in a bare page value
// or in a cell's "page=... rate=1mbit/1mbit ..." (where only the page's
// value is a path: a rate has a slash too).
func shortPage(v string) string {
	fields := strings.Fields(v)
	for i, f := range fields {
		key, val, keyed := strings.Cut(f, "=")
		if !keyed {
			key, val = "", f
		}
		if keyed && key != "page" {
			continue
		}
		if j := strings.LastIndexByte(val, '/'); j >= 0 {
			val = val[j+1:]
		}
		if keyed {
			val = key + "=" + val
		}
		fields[i] = val
	}
	return strings.Join(fields, " ")
}

// explainLine is the two critical-path categories whose difference from
// the baseline is largest on average over the cells (a variant's, or a
// group of them).
func explainLine(label string, cells []*report.Condition, why []report.WhyCell) string {
	in := map[*report.Condition]bool{}
	for _, c := range cells {
		in[c] = true
	}
	sum := map[string]float64{}
	n := 0
	for _, w := range why {
		if !in[w.Cond] {
			continue
		}
		n++
		for _, t := range w.Terms {
			if !math.IsNaN(t.Diff) {
				sum[t.Cat] += t.Diff
			}
		}
	}
	if n == 0 {
		return ""
	}
	cats := make([]string, 0, len(sum))
	for c := range sum {
		cats = append(cats, c)
	}
	sort.Slice(cats, func(i, j int) bool {
		di, dj := math.Abs(sum[cats[i]]), math.Abs(sum[cats[j]])
		if di != dj {
			return di > dj
		}
		return cats[i] < cats[j]
	})
	var parts []string
	for _, c := range cats[:min(2, len(cats))] {
		if sum[c] != 0 {
			parts = append(parts, fmt.Sprintf("%+.0f ms %s", sum[c]/float64(n), probe.CategoryTitle(c)))
		}
	}
	if len(parts) == 0 {
		return label + ": no critical-path category differs"
	}
	return fmt.Sprintf("%s: %s (critical path minus the baseline's, mean over %d cells)", label, strings.Join(parts, ", "), n)
}

// fidelityAnswer is each (profile, protocol, pages) summary's distance
// from Chromium, and the category of its worst cell's largest gap.
func fidelityAnswer(a *report.Analysis) (answer, explain []string) {
	for _, s := range a.FidelitySums {
		line := fmt.Sprintf("loader (%s) vs Chromium, %s on %s: mean |%s ratio - 1| %.1f%% over %d cells, worst %.1f%%; %d within the 10%% goal, %d outside",
			s.Profile, s.Proto, s.Pages, a.Metric.Title, s.MeanAbsErrPct, s.Cells, s.WorstAbsErrPct, s.WithinGoal, s.Outside)
		if w := s.Worst; w != nil {
			line += fmt.Sprintf(" (worst cell ratio %.2f [%.2f, %.2f])", w.Ratio, w.Lo, w.Hi)
			if gaps := w.CategoryGaps(); len(gaps) > 0 {
				explain = append(explain, fmt.Sprintf("%s %s worst cell: %+.0f ms %s (loader minus Chromium)", s.Profile, s.Proto, gaps[0].GapMs, probe.CategoryTitle(gaps[0].Cat)))
			}
		}
		answer = append(answer, line)
	}
	return answer, explain
}
