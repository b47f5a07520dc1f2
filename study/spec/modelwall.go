package spec

import (
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// ModelledWall is the model's guess of a load's wall time in a run:
// ModelledLoad plus, for a real browser, its start, stop and result
// building (estBrowserOverhead), as EstimateDuration counts it. The
// runner's time left weighs the loads with it.
func ModelledWall(m *page.Manifest, c probe.Condition) time.Duration {
	d := ModelledLoad(m, c)
	if cl, _ := probe.LookupClient(c.Client); cl.Browser {
		d += estBrowserOverhead
	}
	return d
}
