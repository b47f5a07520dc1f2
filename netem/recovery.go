package netem

import (
	"fmt"
	"strings"

	"github.com/spdylab/spdylab/probe"
)

// This file sets TCP loss recovery of a condition (probe.TCP.Recovery) in
// the client and server namespaces. Every key below is per network
// namespace, so other testbeds on the machine keep their own.

// recoverySysctls are the keys a 2012 loss recovery writes, with the value
// a Linux 3.2-3.5 behaved like:
//   - tcp_early_retrans 0: no tail-loss probe (TLP came in 3.10; on this
//     kernel 0 disables TLP, 3 and 4 enable it; 3.5's early retransmit,
//     value 2 then, no longer exists apart from RACK).
//   - tcp_recovery 0: RACK off (RACK came in 4.4). Kernels that removed
//     the RFC 6675 code keep RACK on whatever the bit says; the key is
//     still written and read back, and BENCHMARKS.md says what the kernel
//     the numbers came from honours.
//   - tcp_comp_sack_nr 0: a SACK for every out-of-order segment, as before
//     SACK compression (4.17), so loss recovery sees what a 2012 sender saw.
//
// Not here because a namespace cannot change them: PRR (3.2, no sysctl;
// a 2012 kernel had it too), FACK (tcp_fack is ignored since 4.15) and
// F-RTO (tcp_frto 2 then and now).
var recoverySysctls = []struct{ key, value2012 string }{
	{"net/ipv4/tcp_early_retrans", "0"},
	{"net/ipv4/tcp_recovery", "0"},
	{"net/ipv4/tcp_comp_sack_nr", "0"},
}

// applyRecovery writes recovery's sysctls in the calling goroutine's
// namespace (run it through Host.Do); modern ("") leaves the namespace's
// defaults, which a new namespace takes from the kernel, not from the host.
func applyRecovery(recovery string) error {
	switch recovery {
	case "", probe.RecoveryModern:
		return nil
	case probe.Recovery2012:
		for _, s := range recoverySysctls {
			if err := writeSysctl(s.key, s.value2012); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("netem: unknown TCP recovery %q (want %s)", recovery, probe.OneOf(probe.Recoveries))
}

// readRecovery reads the loss-recovery sysctls back (dotted names), for
// Applied.
func readRecovery() map[string]string {
	out := make(map[string]string, len(recoverySysctls))
	for _, s := range recoverySysctls {
		out[dotted(s.key)] = readSysctl(s.key)
	}
	return out
}

// dotted spells a /proc/sys path as sysctl(8) does.
func dotted(key string) string { return strings.ReplaceAll(key, "/", ".") }
