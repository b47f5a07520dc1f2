package har

import (
	"testing"

	"github.com/spdylab/spdylab/probe"
)

// Phases that do not apply (-1) add nothing; SSL is summed apart.
func TestAddPhases(t *testing.T) {
	var total probe.Phases
	AddPhases(&total, Timings{Blocked: 2, DNS: -1, Connect: 10, SSL: 6, Send: 1, Wait: 5, Receive: 3}.Phases())
	AddPhases(&total, NoSetup.Phases())
	want := probe.Phases{Blocked: 2, Connect: 10, SSL: 6, Send: 1, Wait: 5, Receive: 3}
	if total != want {
		t.Errorf("total %+v, want %+v", total, want)
	}
}
