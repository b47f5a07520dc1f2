package report

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/page"
)

// Per-page views, for studies over several pages (a corpus of real pages
// above all): how each page fares against the baseline, the distribution
// of those gains, and the SCTP study's count of pages faster, the same and
// slower.

// PageBand is how far a page's PLT may move against the baseline and still
// count as unchanged: the SCTP study counted pages more than 5% faster,
// within ±5%, and more than 5% slower.
const PageBand = 0.05

// PageGain is one page's result in one case.
type PageGain struct {
	Page string  // page spec
	Gain float64 // median base PLT / median PLT (Condition.Gain)
	// ChangePct is the PLT change against the baseline, in %: negative is
	// faster.
	ChangePct float64
	// Lo and Hi are the gain's 95% interval (NaN without one), and
	// Significance what it says (Condition.GainCI, intervals.go).
	Lo, Hi       float64
	TooFew       bool
	Significance Significance
}

// PageCase is one variant against the baseline over the pages of one case:
// one combination of the varied factors other than the page and the
// baseline's own.
type PageCase struct {
	Variant string
	Case    string // "rate=5mbit/1mbit rtt=60ms"; "" when only pages vary
	Pages   []PageGain
	// Pages more than PageBand faster, within it, and more than it slower.
	Faster, Within, Slower int
	MeanGain               float64 // mean over the pages
	MeanChangePct          float64
}

// Class sorts a PLT change (in %) into the SCTP study's three groups:
// -1 faster, 0 within ±PageBand, +1 slower.
func Class(changePct float64) int {
	switch {
	case changePct < -100*PageBand:
		return -1
	case changePct > 100*PageBand:
		return 1
	}
	return 0
}

// PageCases lists, per variant and case, the gains of every page that has
// one, for the cases with at least two pages (study order).
func PageCases(a *Analysis) []PageCase {
	var caseFactors []string
	for _, f := range a.Study.Varied {
		if _, isBase := a.Study.Baseline[f]; f != "page" && !isBase {
			caseFactors = append(caseFactors, f)
		}
	}
	caseOf := func(c *Condition) string {
		parts := make([]string, len(caseFactors))
		for i, f := range caseFactors {
			parts[i] = f + "=" + c.Values[f]
		}
		return strings.Join(parts, " ")
	}
	var out []PageCase
	for _, variant := range a.variants() {
		index := map[string]int{}
		var cases []PageCase
		for _, c := range a.condsOf(variant) {
			if math.IsNaN(c.Gain) || c.Gain <= 0 {
				continue
			}
			k := caseOf(c)
			i, ok := index[k]
			if !ok {
				i = len(cases)
				index[k] = i
				cases = append(cases, PageCase{Variant: variant, Case: k})
			}
			change := 100 * (1/c.Gain - 1)
			if base, ok := a.ByHash[c.BaseHash]; ok {
				// From the medians themselves: exact at the band's edges.
				change = 100 * (c.PLT.Median - base.PLT.Median) / base.PLT.Median
			}
			cases[i].Pages = append(cases[i].Pages, PageGain{Page: c.Values["page"], Gain: c.Gain, ChangePct: change,
				Lo: c.GainCI.Lo, Hi: c.GainCI.Hi, TooFew: c.GainCI.TooFew, Significance: c.Significance})
		}
		for _, pc := range cases {
			if len(pc.Pages) < 2 {
				continue
			}
			gains, changes := make([]float64, len(pc.Pages)), make([]float64, len(pc.Pages))
			for i, p := range pc.Pages {
				gains[i], changes[i] = p.Gain, p.ChangePct
				switch Class(p.ChangePct) {
				case -1:
					pc.Faster++
				case 1:
					pc.Slower++
				default:
					pc.Within++
				}
			}
			pc.MeanGain, pc.MeanChangePct = stats.Mean(gains), stats.Mean(changes)
			out = append(out, pc)
		}
	}
	return out
}

// pageViews renders PageCases: the count table, a per-page gain table per
// variant and a CDF of gains over pages per variant.
func pageViews(a *Analysis) ([]figure, []table, error) {
	pcs := PageCases(a)
	if len(pcs) == 0 {
		return nil, nil, nil
	}
	caseName := func(k string) string {
		if k == "" {
			return "all pages"
		}
		return k
	}
	band := strconv.Itoa(int(100 * PageBand))
	count := table{Title: "Pages faster, within ±" + band + "%, slower: against " + a.BaseLabel,
		Caption: "Per case, each page's PLT change against the baseline (median PLT of the variant / median PLT of the baseline − 1), counted as the SCTP study did: more than " + band + "% faster, within ±" + band + "%, more than " + band + "% slower. Mean gain and mean change are averages over the pages. Won / lost / undecided / too few: pages whose 95% interval of the gain lies entirely above 1, entirely below 1, contains 1, or that have too few loads for one.",
		Head:    []string{"variant", "case", "pages", ">" + band + "% faster", "within ±" + band + "%", ">" + band + "% slower", "won / lost / undecided / too few", "mean gain", "mean PLT change"}}
	for _, pc := range pcs {
		var verdicts verdictCounts
		for _, p := range pc.Pages {
			verdicts.add(p.Significance)
		}
		count.Rows = append(count.Rows, []cell{{Text: pc.Variant}, {Text: caseName(pc.Case)}, {Text: strconv.Itoa(len(pc.Pages)), Class: "num"},
			{Text: strconv.Itoa(pc.Faster), Class: "num good"}, {Text: strconv.Itoa(pc.Within), Class: "num"}, {Text: strconv.Itoa(pc.Slower), Class: "num bad"},
			{Text: verdicts.String(), Class: "num"}, gainCell(pc.MeanGain), {Text: fmtNum(pc.MeanChangePct, 1) + "%", Class: "num"}})
	}
	tabs := []table{count}
	var figs []figure
	for _, variant := range a.variants() {
		var mine []PageCase
		for _, pc := range pcs {
			if pc.Variant == variant {
				mine = append(mine, pc)
			}
		}
		if len(mine) == 0 {
			continue
		}
		tabs = append(tabs, perPageTable(variant, a.BaseLabel, mine, caseName))
		fig, err := pageCDF(variant, a.BaseLabel, mine, caseName)
		if err != nil {
			return nil, nil, err
		}
		figs = append(figs, fig)
	}
	return figs, tabs, nil
}

// perPageTable has a row per page and a column per case.
func perPageTable(variant, base string, cases []PageCase, caseName func(string) string) table {
	t := table{Title: "Gain per page: " + variant + " against " + base,
		Caption: "Median baseline PLT / median PLT of the variant, per page and case, with its 95% interval; > 1 means the variant is faster; green / red: won / lost (interval entirely above / below 1).",
		Head:    []string{"page"}}
	var pages []string
	gain := map[string]map[int]PageGain{}
	for ci, pc := range cases {
		t.Head = append(t.Head, caseName(pc.Case))
		for _, p := range pc.Pages {
			if gain[p.Page] == nil {
				gain[p.Page] = map[int]PageGain{}
				pages = append(pages, p.Page)
			}
			gain[p.Page][ci] = p
		}
	}
	for _, pg := range pages {
		row := []cell{{Text: page.DisplayName(pg)}}
		for ci := range cases {
			g, ok := gain[pg][ci]
			if !ok {
				row = append(row, gainCell(math.NaN()))
				continue
			}
			row = append(row, cell{Text: withInterval(g.Gain, g.Lo, g.Hi, g.TooFew, 2, 1), Class: significanceClass(g.Significance)})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// maxCDFSeries is how many cases get a line of their own in a CDF; more
// are pooled into one line, which stays readable.
const maxCDFSeries = 6

func pageCDF(variant, base string, cases []PageCase, caseName func(string) string) (figure, error) {
	var series []Series
	if len(cases) <= maxCDFSeries {
		for _, pc := range cases {
			s := Series{Name: caseName(pc.Case)}
			for _, p := range pc.Pages {
				s.X, s.Lo, s.Hi = append(s.X, p.Gain), append(s.Lo, p.Lo), append(s.Hi, p.Hi)
			}
			series = append(series, s)
		}
	} else {
		s := Series{Name: fmt.Sprintf("all %d cases", len(cases))}
		for _, pc := range cases {
			for _, p := range pc.Pages {
				s.X = append(s.X, p.Gain)
			}
		}
		series = append(series, s)
	}
	title := "CDF of gains over pages: " + variant + " against " + base
	svg, legend, err := cdfPlotOf(title, "gain (baseline PLT / PLT)", "fraction of pages", series)
	if err != nil {
		return figure{}, err
	}
	return figure{Title: title, SVG: template.HTML(svg), Legend: legend,
		Caption: "One point per page and case: right of 1 the variant is faster. Horizontal bars (one line per case only): each page's 95% interval of its gain."}, nil
}
