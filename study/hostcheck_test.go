package study

import (
	"strings"
	"testing"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

// The study preflight refuses a congestion control the kernel lacks,
// naming the condition and the value, and passes the kernel default.
func TestCheckHostRefusesAMissingCongestionControl(t *testing.T) {
	cond := func(cc string) spec.Cond {
		return spec.Cond{Condition: probe.Condition{Page: "pageA", Proto: probe.ProtoSPDY31, TCP: probe.TCP{CC: cc}},
			Values: map[string]string{"cc": cc}}
	}
	ok := &spec.Study{Name: "ok", Conditions: []spec.Cond{cond(""), cond("")}}
	if err := CheckHost(ok); err != nil {
		t.Errorf("kernel default: %v", err)
	}
	bad := &spec.Study{Name: "bad", Conditions: []spec.Cond{cond(""), cond("no-such-cc")}}
	err := CheckHost(bad)
	if err == nil || !strings.Contains(err.Error(), `"no-such-cc"`) || !strings.Contains(err.Error(), "study bad") {
		t.Errorf("no-such-cc: %v, want an error naming the study and the value", err)
	}
}
