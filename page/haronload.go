package page

import (
	"strings"
	"time"

	"github.com/spdylab/spdylab/har"
)

// recordedOnload is the page's onload (pageTimings.onLoad, milliseconds
// after the page's startedDateTime) moved to the manifest's clock, which
// starts at the root's request (StartMs). Without a readable page start,
// onLoad counts from the root's request (recorders start both together
// within a millisecond or two). 0 means none: no pages, no onLoad, -1 (not
// reached) or an onload before the root's request.
func recordedOnload(log *har.RecordedLog, pageID string, root time.Time) float64 {
	for _, p := range log.Pages {
		if p.ID != pageID {
			continue
		}
		onload, ok := p.PageTimings.OnLoad.V, p.PageTimings.OnLoad.OK
		if !ok || onload <= 0 {
			return 0
		}
		if start, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(p.StartedDateTime)); err == nil {
			onload += float64(start.Sub(root).Microseconds()) / 1000
		}
		return max(onload, 0)
	}
	return 0
}
