package report

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/probe"
)

var phaseColors = []struct{ name, color string }{
	{"blocked", "#bbbbbb"}, {"dns", "#009e73"}, {"connect", "#e69f00"}, {"ssl", "#cc79a7"},
	{"send", "#56b4e9"}, {"wait", "#f0e442"}, {"receive", "#0072b2"},
}

// WaterfallSVG renders a HAR document as a request waterfall: one row per
// entry, bars coloured by phase, in start order.
func WaterfallSVG(doc []byte, title string) (string, error) {
	return WaterfallPathSVG(doc, title, nil)
}

// criticalColor shades the part of a row that lies on the critical path.
const criticalColor = "#fff0a0"

// WaterfallPathSVG is WaterfallSVG with the load's critical path
// (probe.Breakdown.Path) shaded behind its rows and their names in bold.
func WaterfallPathSVG(doc []byte, title string, path []probe.PathStep) (string, error) {
	w, err := readWaterfall(doc)
	if err != nil {
		return "", err
	}
	onPath := w.pathOnClock(path)
	lay := waterfallLayout{labelW: 260, chartW: 760, rowH: 14, top: 40}
	lay.scale = lay.chartW / math.Max(w.end, 1)
	lay.h = lay.top + lay.rowH*float64(len(w.rows)) + 50
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="10">`, lay.labelW+lay.chartW+70, lay.h)
	fmt.Fprintf(&b, `<text x="0" y="14" font-size="13" font-weight="bold">%s</text>`, html.EscapeString(title))
	lay.writeGrid(&b, w.end)
	for i, r := range w.rows {
		st, ok := onPath[r.e.Request.URL]
		lay.writeRow(&b, i, r, st, ok)
	}
	lay.writeLegend(&b, len(onPath) > 0)
	b.WriteString(`</svg>`)
	return b.String(), nil
}

// waterfall is a HAR's entries on one clock: ms from the earliest start
// (the page's or an entry's), in start order.
type waterfall struct {
	rows []waterfallRow
	end  float64 // ms: the last entry's end
	// shift is where the page started on this clock: the critical path
	// counts from the page's start.
	shift float64
}

type waterfallRow struct {
	start float64 // ms
	e     har.Entry
}

// readWaterfall decodes a HAR document into its rows.
func readWaterfall(doc []byte) (waterfall, error) {
	var w waterfall
	if len(doc) == 0 {
		return w, fmt.Errorf("the probe has no HAR (failed before the first request?)")
	}
	var d har.Document
	if err := json.Unmarshal(doc, &d); err != nil {
		return w, fmt.Errorf("reading HAR: %w", err)
	}
	es := d.Log.Entries
	if len(es) == 0 {
		return w, fmt.Errorf("the HAR has no entries")
	}
	t0 := time.Time{}
	if len(d.Log.Pages) > 0 {
		t0, _ = time.Parse(time.RFC3339Nano, d.Log.Pages[0].StartedDateTime)
	}
	pageT0 := t0 // the critical path's clock
	w.rows = make([]waterfallRow, 0, len(es))
	for _, e := range es {
		st, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
		if err != nil {
			return w, fmt.Errorf("HAR entry %s: bad startedDateTime %q", e.Request.URL, e.StartedDateTime)
		}
		if t0.IsZero() || st.Before(t0) {
			t0 = st
		}
		w.rows = append(w.rows, waterfallRow{start: float64(st.UnixNano()), e: e})
	}
	for i := range w.rows {
		w.rows[i].start = (w.rows[i].start - float64(t0.UnixNano())) / 1e6
		w.end = math.Max(w.end, w.rows[i].start+w.rows[i].e.Time)
	}
	sort.SliceStable(w.rows, func(a, b int) bool { return w.rows[a].start < w.rows[b].start })
	if !pageT0.IsZero() {
		w.shift = float64(pageT0.Sub(t0)) / float64(time.Millisecond)
	}
	return w, nil
}

// pathOnClock is the critical path's steps by URL, moved onto the
// waterfall's clock.
func (w waterfall) pathOnClock(path []probe.PathStep) map[string]probe.PathStep {
	onPath := map[string]probe.PathStep{}
	for _, st := range path {
		st.StartMs, st.EndMs = st.StartMs+w.shift, st.EndMs+w.shift
		onPath[st.URL] = st
	}
	return onPath
}

// waterfallLayout places the chart: a column of names, the bars to its
// right at scale px per ms, one row per entry below the time axis.
type waterfallLayout struct {
	labelW, chartW, rowH, top float64
	scale, h                  float64
}

// writeGrid draws the time axis's lines and labels.
func (l waterfallLayout) writeGrid(b *strings.Builder, end float64) {
	step := niceStep(end / 8)
	for t := 0.0; t <= end; t += step {
		x := l.labelW + t*l.scale
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#e5e5e5"/><text x="%.1f" y="%.0f" fill="#555">%s</text>`,
			x, l.top-6, x, l.h-40, x+2, l.top-8, fmtMs(t))
	}
}

// writeRow draws row i: its name (red when it failed, bold on the
// critical path), the path's shade behind it, its phases and its time.
func (l waterfallLayout) writeRow(b *strings.Builder, i int, r waterfallRow, st probe.PathStep, onPath bool) {
	y := l.top + l.rowH*float64(i)
	fill := "#333"
	if r.e.Error != "" || r.e.Response.Status >= 400 || r.e.Response.Status == 0 {
		fill = "#c00"
	}
	weight := "normal"
	if onPath {
		weight = "bold"
		fmt.Fprintf(b, `<rect x="%.2f" y="%.1f" width="%.2f" height="%.0f" fill="%s"><title>critical path</title></rect>`,
			l.labelW+st.StartMs*l.scale, y, math.Max((st.EndMs-st.StartMs)*l.scale, 0.5), l.rowH, criticalColor)
	}
	fmt.Fprintf(b, `<text x="0" y="%.1f" fill="%s" font-weight="%s">%s</text>`, y+10, fill, weight, html.EscapeString(rowName(r.e)))
	x := l.labelW + r.start*l.scale
	t := r.e.Timings
	for j, v := range []float64{t.Blocked, t.DNS, t.Connect, t.SSL, t.Send, t.Wait, t.Receive} {
		if v <= 0 {
			continue
		}
		// HAR counts ssl inside connect; draw connect without it.
		if j == 2 && t.SSL > 0 {
			v -= t.SSL
		}
		w := v * l.scale
		fmt.Fprintf(b, `<rect x="%.2f" y="%.1f" width="%.2f" height="%.0f" fill="%s"><title>%s %s</title></rect>`,
			x, y+2, math.Max(w, 0.5), l.rowH-4, phaseColors[j].color, phaseColors[j].name, fmtMs(v))
		x += w
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" fill="#555">%s</text>`, x+3, y+10, fmtMs(r.e.Time))
}

// rowName is an entry's label: its host's first name and path, pushed
// ones marked, cut to fit the name column.
func rowName(e har.Entry) string {
	name := e.Request.URL
	if u, err := url.Parse(name); err == nil {
		name = strings.TrimSuffix(strings.SplitN(u.Host, ".", 2)[0], ":") + " " + u.Path
	}
	if e.Pushed {
		name += " (push)"
	}
	if len(name) > 42 {
		name = name[:41] + "…"
	}
	return name
}

// writeLegend names the phases' colours, and the path's when shaded.
func (l waterfallLayout) writeLegend(b *strings.Builder, withPath bool) {
	ly := l.h - 20
	for i, pc := range phaseColors {
		x := l.labelW + float64(i)*80
		fmt.Fprintf(b, `<rect x="%.0f" y="%.0f" width="10" height="10" fill="%s"/><text x="%.0f" y="%.0f">%s</text>`, x, ly-9, pc.color, x+14, ly, pc.name)
	}
	if withPath {
		x := l.labelW + float64(len(phaseColors))*80
		fmt.Fprintf(b, `<rect x="%.0f" y="%.0f" width="10" height="10" fill="%s"/><text x="%.0f" y="%.0f">critical path</text>`, x, ly-9, criticalColor, x+14, ly)
	}
}

func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*mag {
			return m * mag
		}
	}
	return 10 * mag
}

func fmtMs(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.2fs", ms/1000)
	}
	return fmt.Sprintf("%.0fms", ms)
}
