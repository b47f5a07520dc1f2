package netem

import (
	"testing"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

// TestRecovery2012InEveryNamespace reads the loss-recovery sysctls back
// inside the client and server namespaces of real testbeds: 2012 writes
// its values in each, modern leaves the kernel's (TLP on), so the switch
// changes what the kernels run.
func TestRecovery2012InEveryNamespace(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	old := newTestbed(t, Config{Shards: 2, TCP: probe.TCP{Recovery: probe.Recovery2012}})
	modern := newTestbed(t, Config{Shards: 1})
	hosts := append([]*Host{old.Client()}, old.Servers()...)
	for _, h := range hosts {
		var got map[string]string
		h.Do(func() error { got = readRecovery(); return nil })
		for _, s := range recoverySysctls {
			if k := dotted(s.key); got[k] != s.value2012 {
				t.Errorf("%s: %s = %q, want %q", h.Namespace(), k, got[k], s.value2012)
			}
		}
	}
	if a := old.Applied(); a.Recovery["net.ipv4.tcp_early_retrans"] != "0" {
		t.Errorf("Applied.Recovery = %v", a.Recovery)
	}
	var tlp string
	modern.Servers()[0].Do(func() error { tlp = readSysctl("net/ipv4/tcp_early_retrans"); return nil })
	if tlp == "0" || tlp == "" {
		t.Errorf("modern testbed: tcp_early_retrans %q, want the kernel's default (TLP on)", tlp)
	}
}

func TestUnknownRecoveryIsRefused(t *testing.T) {
	if err := applyRecovery("1999"); err == nil {
		t.Error("recovery 1999 accepted")
	}
}
