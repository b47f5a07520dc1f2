package probe

// Paint is what a real browser showed of a page as it loaded: its paint
// metrics, in ms on the PLT's clock (the document's network start). A
// metric that was not measured is nil, never zero, and Absent says why
// (a page that painted nothing, a client that cannot tell, frames off).
type Paint struct {
	// FCPms is the first contentful paint: the first frame showing text,
	// an image, a non-white canvas or SVG (the browser's own 'paint' entry).
	FCPms *float64 `json:"fcp_ms,omitempty"`
	// LCPms is the largest contentful paint: the render time of the
	// largest text block or image in the viewport, the browser's last
	// 'largest-contentful-paint' entry when the load ended.
	LCPms *float64 `json:"lcp_ms,omitempty"`
	// LCPURL is the LCP element's resource: an image's URL; "" for a
	// text block. LCPElement is the element's tag ("IMG", "P", ...).
	LCPURL     string `json:"lcp_url,omitempty"`
	LCPElement string `json:"lcp_element,omitempty"`
	// SpeedIndexMs is the Speed Index: the integral over time of the
	// part of the viewport not yet visually complete, from the load's
	// screencast frames (the condition's speed_index). Frames counts them.
	SpeedIndexMs *float64 `json:"speed_index_ms,omitempty"`
	Frames       int      `json:"frames,omitempty"`
	// Absent says, one reason per line, why a metric above is missing.
	Absent string `json:"absent,omitempty"`
	// Estimated: the metrics are the loader's estimates from its network
	// events (loader/paint.go), not a browser's measurements.
	Estimated bool `json:"estimated,omitempty"`
}

// PaintMetrics are the paint metrics' names, as the store's columns and
// the exports spell them.
var PaintMetrics = []string{"fcp_ms", "lcp_ms", "speed_index_ms"}

// Metric returns the named paint metric (one of PaintMetrics), nil when
// absent; p may be nil (a load without paint metrics, or an older one).
func (p *Paint) Metric(name string) *float64 {
	if p == nil {
		return nil
	}
	switch name {
	case "fcp_ms":
		return p.FCPms
	case "lcp_ms":
		return p.LCPms
	case "speed_index_ms":
		return p.SpeedIndexMs
	}
	return nil
}

// AddAbsent appends one reason to Absent.
func (p *Paint) AddAbsent(why string) {
	if p.Absent != "" {
		p.Absent += "\n"
	}
	p.Absent += why
}
