package report

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/study/store"
)

// Comparison sets two runs of the same conditions side by side, e.g. a
// study run at -j 4 against the same study at -j 1: are the medians the
// same within the run-to-run noise?
type Comparison struct {
	Metric string // the title of what the medians are of ("PLT", "LCP")
	Rows   []CompareRow
	// Conditions with loads in both runs.
	Common int
	// Within counts conditions whose medians differ by no more than the
	// noise band: half the larger of the two interquartile ranges.
	Within int
	// MedianAbsDiffPct is the median over conditions of |b/a - 1| in %.
	MedianAbsDiffPct float64
	// MedianRelIQRPct is the median over conditions of the reference run's
	// IQR / median in %: the run-to-run spread the differences compare to.
	MedianRelIQRPct float64
	// SumPLTa and SumPLTb are the summed PLT of every successful load: the
	// serial lower bound of each run's wall time.
	SumPLTa, SumPLTb float64
	// ShiftPct is the geometric mean over conditions of B/A - 1 in %, with
	// a 95% confidence half-width: a systematic slow-down of B (CPU
	// contention inflating every load) shows here even when each single
	// condition stays within its noise band.
	ShiftPct, ShiftCIPct float64
	// Gains: conditions with a gain in both runs, how many change verdict
	// (gain >= 1 in one run, < 1 in the other), and the median |gainB/gainA - 1| in %.
	Gains, GainFlips  int
	MedianGainDiffPct float64
	// With the gains' 95% intervals (intervals.go): of the conditions with
	// an interval in both runs, how many keep their verdict (won, lost,
	// undecided), and how many are won in one run and lost in the other.
	Decided, SameVerdict, WonAndLost int
	LateA, LateB                     int // loads whose emulator ran late (see LateLimitMs)
	LoadsA, LoadsB                   int // successful loads
}

// CompareRow is one condition.
type CompareRow struct {
	Hash        string
	Label       string
	A, B        Stats
	DiffPct     float64 // 100 * (B.Median/A.Median - 1)
	NoiseMs     float64 // max(IQR_a, IQR_b) / 2
	WithinNoise bool
}

// AnalyzeDir reads the store in dir and analyses it.
func AnalyzeDir(dir string) (*Analysis, error) { return AnalyzeDirWith(dir, Options{}) }

// AnalyzeDirWith is AnalyzeDir with options.
func AnalyzeDirWith(dir string, opt Options) (*Analysis, error) {
	st, err := store.OpenReader(dir)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return AnalyzeWith(st, opt)
}

// Compare matches the conditions of two stores by hash, in PLT.
func Compare(dirA, dirB string) (*Comparison, error) { return CompareWith(dirA, dirB, Options{}) }

// CompareWith is Compare in the chosen metric (opt.Metric; "" is the
// reference store's study's own, else PLT): each condition's medians and
// spreads, the shift and the gains are the metric's. Both stores are read
// in the metric the reference store resolves to.
func CompareWith(dirA, dirB string, opt Options) (*Comparison, error) {
	a, err := AnalyzeDirWith(dirA, opt)
	if err != nil {
		return nil, err
	}
	opt.Metric = a.Metric.Name
	b, err := AnalyzeDirWith(dirB, opt)
	if err != nil {
		return nil, err
	}
	c := &Comparison{Metric: a.Metric.Title}
	for _, p := range a.Probes {
		if !p.Result.Failed {
			c.SumPLTa += p.Result.PLTms
		}
	}
	for _, p := range b.Probes {
		if !p.Result.Failed {
			c.SumPLTb += p.Result.PLTms
		}
	}
	c.LateA, c.LateB = a.LateLoads, b.LateLoads
	var diffs, iqrs, logs, gainDiffs []float64
	for _, ca := range a.Conds {
		cb := b.ByHash[ca.Hash]
		if cb == nil || ca.Value.N == 0 || cb.Value.N == 0 {
			continue
		}
		va, vb := ca.Value, cb.Value
		r := CompareRow{Hash: ca.Hash, Label: ca.Label + " " + describeValues(ca, a.Study.Varied), A: va, B: vb}
		r.DiffPct = 100 * (vb.Median/va.Median - 1)
		r.NoiseMs = math.Max(va.P75-va.P25, vb.P75-vb.P25) / 2
		r.WithinNoise = math.Abs(vb.Median-va.Median) <= r.NoiseMs
		c.Rows = append(c.Rows, r)
		c.Common++
		if r.WithinNoise {
			c.Within++
		}
		c.LoadsA += va.N
		c.LoadsB += vb.N
		diffs = append(diffs, math.Abs(r.DiffPct))
		iqrs = append(iqrs, 100*(va.P75-va.P25)/va.Median)
		logs = append(logs, math.Log(vb.Median/va.Median))
		if !math.IsNaN(ca.Gain) && !math.IsNaN(cb.Gain) {
			c.Gains++
			if (ca.Gain >= 1) != (cb.Gain >= 1) {
				c.GainFlips++
			}
			gainDiffs = append(gainDiffs, 100*math.Abs(cb.Gain/ca.Gain-1))
			c.countVerdicts(ca.Significance, cb.Significance)
		}
	}
	if c.Common == 0 {
		return nil, fmt.Errorf("%s and %s have no condition with %s values in common", dirA, dirB, c.Metric)
	}
	c.MedianAbsDiffPct = stats.Median(diffs)
	c.MedianRelIQRPct = stats.Median(iqrs)
	mean, half := stats.MeanCI95(logs)
	c.ShiftPct = 100 * (math.Exp(mean) - 1)
	c.ShiftCIPct = 100 * (math.Exp(mean+half) - math.Exp(mean))
	if len(gainDiffs) > 0 {
		c.MedianGainDiffPct = stats.Median(gainDiffs)
	}
	return c, nil
}

// countVerdicts adds one condition's verdicts in the two runs.
func (c *Comparison) countVerdicts(a, b Significance) {
	if a == TooFewLoads || b == TooFewLoads || a == NoGain || b == NoGain {
		return
	}
	c.Decided++
	if a == b {
		c.SameVerdict++
	}
	if (a == Won && b == Lost) || (a == Lost && b == Won) {
		c.WonAndLost++
	}
}

func describeValues(c *Condition, varied []string) string {
	s := ""
	for _, f := range varied {
		if f == "protocol" {
			continue
		}
		s += f + "=" + c.Values[f] + " "
	}
	return s
}

// Write prints the comparison as a table and a summary.
func (c *Comparison) Write(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s median A (ms)\tIQR A\tmedian B (ms)\tIQR B\tB/A-1 %%\twithin noise\tcondition\t\n", c.Metric)
	for _, r := range c.Rows {
		fmt.Fprintf(tw, "%.0f\t%.0f\t%.0f\t%.0f\t%+.1f\t%v\t%s\t\n", r.A.Median, r.A.P75-r.A.P25, r.B.Median, r.B.P75-r.B.P25, r.DiffPct, r.WithinNoise, r.Label)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d of %d conditions within noise (|median B - median A| <= max IQR / 2); median |B/A-1| = %.1f%%; median IQR/median of A = %.1f%%\n",
		c.Within, c.Common, c.MedianAbsDiffPct, c.MedianRelIQRPct)
	fmt.Fprintf(w, "systematic shift of B against A (geometric mean of median ratios): %+.1f%% ± %.1f%% (95%%)\n", c.ShiftPct, c.ShiftCIPct)
	if c.Gains > 0 {
		fmt.Fprintf(w, "gains: %d conditions, median |gain B/gain A - 1| = %.1f%%, %d change verdict (>= 1 vs < 1)\n", c.Gains, c.MedianGainDiffPct, c.GainFlips)
		fmt.Fprintf(w, "gains with a 95%% interval in both runs: %d; %d keep their verdict (won / lost / undecided), %d won in one run and lost in the other\n",
			c.Decided, c.SameVerdict, c.WonAndLost)
	}
	fmt.Fprintf(w, "loads with a late emulator (p99 > %.0f ms): A %d of %d, B %d of %d\n", LateLimitMs, c.LateA, c.LoadsA, c.LateB, c.LoadsB)
	fmt.Fprintf(w, "sum of successful PLTs (serial lower bound of wall time): A %.0f s, B %.0f s\n", c.SumPLTa/1000, c.SumPLTb/1000)
}
