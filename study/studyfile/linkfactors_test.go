package studyfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spdylab/spdylab/probe"
)

// Every link setting is a factor: Gilbert-Elliott loss, traces,
// per-direction queues and delays, per-shard links.
func TestLinkFactors(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "down.trace")
	os.WriteFile(trace, []byte("1\n2\n"), 0o644)
	src := "name = \"x\"\nruns = 1\n[factors]\npage = \"pageA\"\nprotocol = \"https\"\n" +
		"ge_down = [\"p=1%,r=30%\", \"p=2%,r=30%\"]\nqueue_up = \"20pkt\"\nrtt = \"40ms\"\ndelay_down = \"30ms\"\n" +
		"per_shard_links = true\ntrace_down = \"" + trace + "\"\n"
	s, err := Parse([]byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Conditions) != 2 || len(s.Varied) != 1 || s.Varied[0] != "ge_down" {
		t.Fatalf("%d conditions, varied %v", len(s.Conditions), s.Varied)
	}
	l := s.Conditions[0].Link
	if l.GEDown != (probe.GilbertElliott{P: 0.01, R: 0.3, LossBad: 1}) || l.QueueUp != (probe.Queue{Pkts: 20}) ||
		l.DelayDown.Milliseconds() != 30 || l.Shared || l.TraceDown != trace {
		t.Errorf("link %+v", l)
	}
	if v := s.Conditions[1].Values["ge_down"]; v != "p=0.02,r=0.3,h=0,k=1" {
		t.Errorf("canonical ge_down %q", v)
	}
	bad := "name = \"x\"\nruns = 1\n[factors]\npage = \"pageA\"\nprotocol = \"https\"\nloss_down = \"1%\"\nge_down = \"p=1%,r=30%\"\n[baseline]\nprotocol = \"https\"\n"
	if _, err := Parse([]byte(bad), ""); err == nil {
		t.Error("ge_down with loss_down accepted")
	}
}
