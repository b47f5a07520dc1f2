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
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if zeroLine {
		var xs []float64
		for _, s := range series {
			xs = append(xs, s.X...)
		}
		if len(xs) > 0 {
			lo, hi := minMax(xs)
			z, err := plotter.NewLine(plotter.XYs{{X: lo, Y: 0}, {X: hi, Y: 0}})
			if err == nil {
				z.Color = color.Gray{Y: 120}
				z.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
				p.Add(z)
			}
		}
	}
	for i, s := range series {
		pts := plotter.XYs{}
		for j := range s.X {
			if math.IsNaN(s.Y[j]) || (logX && s.X[j] <= 0) {
				continue
			}
			pts = append(pts, plotter.XY{X: s.X[j], Y: s.Y[j]})
		}
		if len(pts) == 0 {
			continue
		}
		sort.Slice(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
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
	for _, s := range series {
		x := append([]float64(nil), s.X...)
		sort.Float64s(x)
		y := make([]float64, len(x))
		for i := range x {
			y[i] = float64(i+1) / float64(len(x))
		}
		cdf = append(cdf, Series{Name: s.Name, X: x, Y: y})
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
