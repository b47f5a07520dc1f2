package harness

import (
	"github.com/spdylab/spdylab/critpath"
	"github.com/spdylab/spdylab/loader"
	"github.com/spdylab/spdylab/probe"
)

// explain gives r its critical path (probe.Breakdown), once every counter
// of the load is in: the loader's renderer costs explain part of its
// gaps; Chromium's (rc zero) are not traced.
func (b *Bench) explain(r *probe.Result, rc loader.RendererCosts) {
	r.Breakdown = critpath.Analyze(critpath.Input{Result: r, Manifest: b.m,
		Renderer: critpath.Renderer{CommitDelay: rc.CommitDelay, DispatchCost: rc.DispatchCost}})
}
