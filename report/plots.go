package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one line of a plot.
type Series struct {
	Name string
	X, Y []float64
	// Lo and Hi, when set, are a 95% interval per point, drawn as an error
	// bar (NaN: none): along Y in line plots, along X in CDFs.
	Lo, Hi []float64
}

// hasInterval is whether point i of s has an interval to draw: finite
// bounds (gonum refuses to draw others, and the report with them).
func (s Series) hasInterval(i int) bool {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	return i < len(s.Lo) && i < len(s.Hi) && finite(s.Lo[i]) && finite(s.Hi[i])
}

// span is an interval [lo, hi] drawn at position at (x for a vertical bar,
// y for a horizontal one).
type span struct{ at, lo, hi float64 }

// ySpans and xSpans draw spans with gonum's error bars, which take a
// point and distances either side: the point is the interval's middle, so
// the bar covers the interval exactly even where a bootstrap interval
// does not contain its estimate.
type ySpans []span

func (s ySpans) Len() int                        { return len(s) }
func (s ySpans) XY(i int) (float64, float64)     { return s[i].at, (s[i].lo + s[i].hi) / 2 }
func (s ySpans) YError(i int) (float64, float64) { h := (s[i].hi - s[i].lo) / 2; return h, h }

type xSpans []span

func (s xSpans) Len() int                        { return len(s) }
func (s xSpans) XY(i int) (float64, float64)     { return (s[i].lo + s[i].hi) / 2, s[i].at }
func (s xSpans) XError(i int) (float64, float64) { h := (s[i].hi - s[i].lo) / 2; return h, h }

// addBars adds interval bars in colour c: vertical for ySpans, horizontal
// for xSpans.
func addBars(p *plot.Plot, bars any, c color.Color) error {
	var style *draw.LineStyle
	var capWidth *vg.Length
	switch b := bars.(type) {
	case ySpans:
		if len(b) == 0 {
			return nil
		}
		e, err := plotter.NewYErrorBars(b)
		if err != nil {
			return err
		}
		style, capWidth = &e.LineStyle, &e.CapWidth
		p.Add(e)
	case xSpans:
		if len(b) == 0 {
			return nil
		}
		e, err := plotter.NewXErrorBars(b)
		if err != nil {
			return err
		}
		style, capWidth = &e.LineStyle, &e.CapWidth
		p.Add(e)
	}
	style.Color, style.Width, *capWidth = c, vg.Points(0.8), vg.Points(3)
	return nil
}

// palette is colour-blind friendly (Okabe-Ito), cycled.
var palette = []color.RGBA{
	{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{86, 180, 233, 255}, {230, 159, 0, 255}, {0, 0, 0, 255}, {240, 228, 66, 255},
}

func colorAt(i int) color.RGBA { return palette[i%len(palette)] }

// legendItem is drawn in HTML under a plot: gonum draws legends inside the
// data area, where they hide lines.
type legendItem struct {
	Name  string
	Color string // CSS colour
	Shape string // "line", "box"
}

func cssColor(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// svgOf renders a plot to an inline <svg> element (no XML prolog).
func svgOf(p *plot.Plot, w, h vg.Length) (string, error) {
	c := vgsvg.New(w, h)
	// Leave room on the right: the last tick label is centred on the
	// axis end and would otherwise be cut off.
	p.Draw(draw.Crop(draw.New(c), 0, -vg.Points(18), 0, 0))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", err
	}
	s := buf.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return s, nil
}

func newPlot(title, xl, yl string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xl
	p.Y.Label.Text = yl
	p.Add(plotter.NewGrid())
	return p
}

// linePlot draws series as lines with points; logX for rate sweeps.
func linePlot(title, xl, yl string, series []Series, logX bool, zeroLine bool) (string, []legendItem, error) {
	var legend []legendItem
	p := newPlot(title, xl, yl)
	var xs []float64
	for _, s := range series {
		xs = append(xs, s.X...)
	}
	xLo, xHi := minMax(xs)
	// A log axis needs drawn points above zero at two x values at least:
	// with none (every load of the sweep failed or lacks the metric, so
	// every y is NaN) gonum's axis keeps its zero range, and with one x
	// it widens the range by 1 each way, below zero for an x of 1 or
	// less; either way its log ticks panic, so the axis stays linear.
	if pLo, pHi, ok := drawnRange(series); logX && ok && pLo > 0 && pHi > pLo {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.X.Min, p.X.Max = pLo, pHi
	} else {
		logX = false
	}
	if zeroLine {
		if len(xs) > 0 {
			z, err := plotter.NewLine(plotter.XYs{{X: xLo, Y: 0}, {X: xHi, Y: 0}})
			if err == nil {
				z.Color = color.Gray{Y: 120}
				z.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
				p.Add(z)
			}
		}
	}
	for i, s := range series {
		pts := plotter.XYs{}
		var bars ySpans
		for j := range s.X {
			if math.IsNaN(s.Y[j]) || (logX && s.X[j] <= 0) {
				continue
			}
			pts = append(pts, plotter.XY{X: s.X[j], Y: s.Y[j]})
			if s.hasInterval(j) {
				bars = append(bars, span{dodge(s.X[j], i, len(series), xLo, xHi, logX), s.Lo[j], s.Hi[j]})
			}
		}
		if len(pts) == 0 {
			continue
		}
		sort.Slice(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		if err := addBars(p, bars, colorAt(i)); err != nil {
			return "", nil, err
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return "", nil, err
		}
		l.Color = colorAt(i)
		l.Width = vg.Points(1.5)
		l.Dashes = dashesAt(i)
		sc.Color = colorAt(i)
		sc.Shape = shapeAt(i)
		p.Add(l, sc)
		shape := "line"
		if i >= len(palette) {
			shape = "dash"
		}
		legend = append(legend, legendItem{s.Name, cssColor(colorAt(i)), shape})
	}
	svg, err := svgOf(p, 7*vg.Inch, 4*vg.Inch)
	return svg, legend, err
}

// drawnRange is the x range of the points linePlot draws (y not NaN), and
// whether there is one.
func drawnRange(series []Series) (lo, hi float64, ok bool) {
	for _, s := range series {
		for j, x := range s.X {
			if j >= len(s.Y) || math.IsNaN(s.Y[j]) || math.IsNaN(x) {
				continue
			}
			if !ok || x < lo {
				lo = x
			}
			if !ok || x > hi {
				hi = x
			}
			ok = true
		}
	}
	return lo, hi, ok
}

// dodge shifts series i's interval bars (of n) a little along x, so that
// the bars of several lines at one x sit side by side instead of on top
// of each other: at most ±1.5% of the axis, multiplicatively on a log axis.
func dodge(x float64, i, n int, lo, hi float64, logX bool) float64 {
	if n < 2 || !(hi > lo) {
		return x
	}
	f := 0.03 * (float64(i)/float64(n-1) - 0.5)
	if logX {
		return x * math.Pow(hi/lo, f)
	}
	return x + f*(hi-lo)
}

// dashesAt: after the palette's colours are used up, lines are dashed so
// that no two series look alike.
func dashesAt(i int) []vg.Length {
	if i < len(palette) {
		return nil
	}
	return []vg.Length{vg.Points(6), vg.Points(3)}
}

func shapeAt(i int) draw.GlyphDrawer {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}
	return shapes[i%len(shapes)]
}

func minMax(v []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// cdfPlot draws the empirical CDF of each series' X values.
func cdfPlot(title, xl string, series []Series) (string, []legendItem, error) {
	return cdfPlotOf(title, xl, "fraction of loads", series)
}

// cdfPlotOf is cdfPlot of other things than loads (yl names them).
func cdfPlotOf(title, xl, yl string, series []Series) (string, []legendItem, error) {
	var legend []legendItem
	var cdf []Series
	var bars []xSpans // per series, each point's interval at its step
	for _, s := range series {
		order := make([]int, len(s.X))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return s.X[order[a]] < s.X[order[b]] })
		c := Series{Name: s.Name, X: make([]float64, len(s.X)), Y: make([]float64, len(s.X))}
		var b xSpans
		for i, j := range order {
			c.X[i], c.Y[i] = s.X[j], float64(i+1)/float64(len(s.X))
			if s.hasInterval(j) {
				b = append(b, span{c.Y[i], s.Lo[j], s.Hi[j]})
			}
		}
		cdf, bars = append(cdf, c), append(bars, b)
	}
	p := newPlot(title, xl, yl)
	for i, s := range cdf {
		pts := make(plotter.XYs, len(s.X))
		for j := range s.X {
			pts[j] = plotter.XY{X: s.X[j], Y: s.Y[j]}
		}
		if len(pts) == 0 {
			continue
		}
		if err := addBars(p, bars[i], colorAt(i)); err != nil {
			return "", nil, err
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return "", nil, err
		}
		l.StepStyle = plotter.PostStep
		l.Color = colorAt(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		legend = append(legend, legendItem{s.Name, cssColor(colorAt(i)), "line"})
	}
	p.Y.Min, p.Y.Max = 0, 1
	svg, err := svgOf(p, 7*vg.Inch, 4*vg.Inch)
	return svg, legend, err
}

// stackedBars draws one bar per category, stacked from the named parts.
func stackedBars(title, yl string, categories []string, parts []Series, colors []string) (string, []legendItem, error) {
	var legend []legendItem
	p := newPlot(title, "", yl)
	w := vg.Points(40)
	var below *plotter.BarChart
	for i, part := range parts {
		b, err := plotter.NewBarChart(plotter.Values(part.Y), w)
		if err != nil {
			return "", nil, err
		}
		b.Color = parseHex(colors[i%len(colors)])
		b.LineStyle.Width = 0
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		legend = append(legend, legendItem{part.Name, colors[i%len(colors)], "box"})
	}
	p.NominalX(categories...)
	svg, err := svgOf(p, 7*vg.Inch, 4*vg.Inch)
	return svg, legend, err
}

// scatterFit draws points with labels and a fitted line y = a + b x.
func scatterFit(title, xl, yl string, pts []Series, a, b float64, fit bool) (string, []legendItem, error) {
	var legend []legendItem
	p := newPlot(title, xl, yl)
	var xs []float64
	for i, s := range pts {
		xy := plotter.XYs{}
		for j := range s.X {
			xy = append(xy, plotter.XY{X: s.X[j], Y: s.Y[j]})
			xs = append(xs, s.X[j])
		}
		if len(xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return "", nil, err
		}
		sc.Color = colorAt(i)
		sc.Shape = shapeAt(i)
		sc.Radius = vg.Points(4)
		p.Add(sc)
		legend = append(legend, legendItem{s.Name, cssColor(colorAt(i)), "box"})
	}
	if fit && len(xs) > 1 {
		lo, hi := minMax(xs)
		l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: a + b*lo}, {X: hi, Y: a + b*hi}})
		if err == nil {
			l.Color = color.Gray{Y: 60}
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			p.Add(l)
			legend = append(legend, legendItem{fmt.Sprintf("fit m = %.2f + %.3f r", a, b), "#3c3c3c", "line"})
		}
	}
	svg, err := svgOf(p, 7*vg.Inch, 4*vg.Inch)
	return svg, legend, err
}

func parseHex(s string) color.RGBA {
	var r, g, b uint8
	fmt.Sscanf(s, "#%02x%02x%02x", &r, &g, &b)
	return color.RGBA{r, g, b, 255}
}
