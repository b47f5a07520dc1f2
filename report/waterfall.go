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
	if len(doc) == 0 {
		return "", fmt.Errorf("the probe has no HAR (failed before the first request?)")
	}
	var d har.Document
	if err := json.Unmarshal(doc, &d); err != nil {
		return "", fmt.Errorf("reading HAR: %w", err)
	}
	es := d.Log.Entries
	if len(es) == 0 {
		return "", fmt.Errorf("the HAR has no entries")
	}
	t0 := time.Time{}
	if len(d.Log.Pages) > 0 {
		t0, _ = time.Parse(time.RFC3339Nano, d.Log.Pages[0].StartedDateTime)
	}
	pageT0 := t0 // the critical path's clock
	type row struct {
		start float64
		e     har.Entry
	}
	rows := make([]row, 0, len(es))
	for _, e := range es {
		st, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
		if err != nil {
			return "", fmt.Errorf("HAR entry %s: bad startedDateTime %q", e.Request.URL, e.StartedDateTime)
		}
		if t0.IsZero() || st.Before(t0) {
			t0 = st
		}
		rows = append(rows, row{e: e})
		rows[len(rows)-1].start = float64(st.UnixNano())
	}
	end := 0.0
	for i := range rows {
		rows[i].start = (rows[i].start - float64(t0.UnixNano())) / 1e6
		end = math.Max(end, rows[i].start+rows[i].e.Time)
	}
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].start < rows[b].start })
	onPath := map[string]probe.PathStep{}
	shift := 0.0 // page start on the waterfall's clock
	if !pageT0.IsZero() {
		shift = float64(pageT0.Sub(t0)) / float64(time.Millisecond)
	}
	for _, st := range path {
		st.StartMs, st.EndMs = st.StartMs+shift, st.EndMs+shift
		onPath[st.URL] = st
	}
	const labelW, chartW, rowH, top = 260.0, 760.0, 14.0, 40.0
	scale := chartW / math.Max(end, 1)
	h := top + rowH*float64(len(rows)) + 50
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="10">`, labelW+chartW+70, h)
	fmt.Fprintf(&b, `<text x="0" y="14" font-size="13" font-weight="bold">%s</text>`, html.EscapeString(title))
	// time grid
	step := niceStep(end / 8)
	for t := 0.0; t <= end; t += step {
		x := labelW + t*scale
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#e5e5e5"/><text x="%.1f" y="%.0f" fill="#555">%s</text>`,
			x, top-6, x, h-40, x+2, top-8, fmtMs(t))
	}
	for i, r := range rows {
		y := top + rowH*float64(i)
		name := r.e.Request.URL
		if u, err := url.Parse(name); err == nil {
			name = strings.TrimSuffix(strings.SplitN(u.Host, ".", 2)[0], ":") + " " + u.Path
		}
		if r.e.Pushed {
			name += " (push)"
		}
		if len(name) > 42 {
			name = name[:41] + "…"
		}
		fill := "#333"
		if r.e.Error != "" || r.e.Response.Status >= 400 || r.e.Response.Status == 0 {
			fill = "#c00"
		}
		weight := "normal"
		if st, ok := onPath[r.e.Request.URL]; ok {
			weight = "bold"
			fmt.Fprintf(&b, `<rect x="%.2f" y="%.1f" width="%.2f" height="%.0f" fill="%s"><title>critical path</title></rect>`,
				labelW+st.StartMs*scale, y, math.Max((st.EndMs-st.StartMs)*scale, 0.5), rowH, criticalColor)
		}
		fmt.Fprintf(&b, `<text x="0" y="%.1f" fill="%s" font-weight="%s">%s</text>`, y+10, fill, weight, html.EscapeString(name))
		x := labelW + r.start*scale
		t := r.e.Timings
		for j, v := range []float64{t.Blocked, t.DNS, t.Connect, t.SSL, t.Send, t.Wait, t.Receive} {
			if v <= 0 {
				continue
			}
			// HAR counts ssl inside connect; draw connect without it.
			if j == 2 && t.SSL > 0 {
				v -= t.SSL
			}
			w := v * scale
			fmt.Fprintf(&b, `<rect x="%.2f" y="%.1f" width="%.2f" height="%.0f" fill="%s"><title>%s %s</title></rect>`,
				x, y+2, math.Max(w, 0.5), rowH-4, phaseColors[j].color, phaseColors[j].name, fmtMs(v))
			x += w
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#555">%s</text>`, x+3, y+10, fmtMs(r.e.Time))
	}
	ly := h - 20
	for i, pc := range phaseColors {
		x := labelW + float64(i)*80
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="10" height="10" fill="%s"/><text x="%.0f" y="%.0f">%s</text>`, x, ly-9, pc.color, x+14, ly, pc.name)
	}
	if len(onPath) > 0 {
		x := labelW + float64(len(phaseColors))*80
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="10" height="10" fill="%s"/><text x="%.0f" y="%.0f">critical path</text>`, x, ly-9, criticalColor, x+14, ly)
	}
	b.WriteString(`</svg>`)
	return b.String(), nil
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
