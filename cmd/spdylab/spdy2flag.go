package main

import (
	"flag"

	"github.com/spdylab/spdylab/spdy"
)

// spdy2WindowsFlag is --spdy2-windows, shared by get, load and serve:
// whether spdy/2 sessions keep SPDY/3 stream windows
// (spdy.Config.SPDY2StreamWindows; interop/SPDY_ISSUES.md #8).
type spdy2WindowsFlag struct{ mode spdy.SPDY2Windows }

func (f *spdy2WindowsFlag) register(fs *flag.FlagSet) {
	fs.TextVar(&f.mode, "spdy2-windows", spdy.SPDY2WindowsAuto,
		"spdy/2 stream flow control, `auto|on|off`: auto (draft 2's none until the peer shows SPDY/3 windows, as node-spdy keeps: its window SETTINGS or a WINDOW_UPDATE), on (SPDY/3 windows from the start), off (never)")
}
