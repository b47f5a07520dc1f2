package study

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/spdylab/spdylab/study/spec"
)

func TestProvenanceDescribesTheMachine(t *testing.T) {
	tools := map[string][]string{"echoer": {"sh", "-c", "echo echoer 1.2; echo more"}, "gone": {"/nonexistent/tool", "--version"}}
	p := CollectProvenance(7, 2, spec.Shard{}, "test", tools)
	m := p.Machine
	if p.Seed != 7 || p.Jobs != 2 || p.Revision == "" {
		t.Errorf("provenance %+v", p)
	}
	if m.CPUs != runtime.NumCPU() || m.CPUModel == "" || m.MemMiB <= 0 {
		t.Errorf("machine: %d CPUs %q, %d MiB", m.CPUs, m.CPUModel, m.MemMiB)
	}
	if m.Sysctls["net.ipv4.tcp_congestion_control"] == "" || m.Sysctls["net.ipv4.tcp_rmem"] == "" {
		t.Errorf("sysctls not read: %v", m.Sysctls)
	}
	if m.Deps["echoer"] != "echoer 1.2" {
		t.Errorf("a tool's version is its first line: %v", m.Deps)
	}
	if _, ok := m.Deps["gone"]; ok {
		t.Errorf("a missing tool got a version: %v", m.Deps)
	}
}

func TestModuleVersionsPicksTheProtocolStacks(t *testing.T) {
	bi := &debug.BuildInfo{Deps: []*debug.Module{
		{Path: "github.com/quic-go/quic-go", Version: "v0.54.0"},
		{Path: "golang.org/x/net", Version: "v0.40.0", Replace: &debug.Module{Path: "../net", Version: ""}},
		{Path: "github.com/some/other", Version: "v1.0.0"},
	}}
	got := moduleVersions(bi)
	if len(got) != 2 || got["github.com/quic-go/quic-go"] != "v0.54.0" || got["golang.org/x/net"] != "v0.40.0 => ../net " {
		t.Errorf("module versions %q", got)
	}
}
