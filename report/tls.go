package report

import (
	"fmt"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/probe"
)

// TLSStats summarises the TLS handshakes of a condition's (or `spdylab
// load`'s) successful loads: medians over loads of each load's count, so a
// reader sees what resumption and 0-RTT saved. RoundTrips are the
// handshakes' own round trips before their connections could carry a
// request (probe.TLSHandshakes: TLS 1.2 full 2, resumed 1; TLS 1.3 1; QUIC
// 1, 0 with accepted 0-RTT), summed over the load's connections. Zero
// without a successful load.
type TLSStats struct {
	RoundTrips float64 `json:"round_trips_median"`
	Full       float64 `json:"full_median"`
	Resumed    float64 `json:"resumed_median"`
	EarlyData  float64 `json:"early_data_median"` // of the resumed, with 0-RTT
}

// summarizeTLS takes the medians of the loads' handshake counts.
func summarizeTLS(hs []probe.TLSHandshakes) TLSStats {
	if len(hs) == 0 {
		return TLSStats{}
	}
	var rt, full, res, early []float64
	for _, h := range hs {
		rt = append(rt, float64(h.RoundTrips))
		full = append(full, float64(h.Full))
		res = append(res, float64(h.Resumed))
		early = append(early, float64(h.EarlyData))
	}
	return TLSStats{stats.Median(rt), stats.Median(full), stats.Median(res), stats.Median(early)}
}

// String is the table cell: "3 (1 full, 2 resumed)", with the 0-RTT ones
// when there were any; "–" without handshakes (plaintext) or loads.
func (t TLSStats) String() string {
	if t.Full+t.Resumed == 0 {
		return "–"
	}
	s := fmt.Sprintf("%s (%s full, %s resumed", fmtNum(t.RoundTrips, -1), fmtNum(t.Full, -1), fmtNum(t.Resumed, -1))
	if t.EarlyData > 0 {
		s += ", " + fmtNum(t.EarlyData, -1) + " 0-RTT"
	}
	return s + ")"
}
