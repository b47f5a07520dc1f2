package sctp

/*
#include <usrsctp.h>
*/
import "C"

import "fmt"

// StackTuning holds usrsctp settings that are process-wide sysctls, not
// socket options: a change applies to every association the process sets
// up afterwards, whichever Dial or Listener. They suit a bench measuring
// one setting at a time, not the conditions of a study run (its benches
// share the process). The stack starts with usrsctp's defaults.
type StackTuning struct {
	// InitialCwnd is the initial congestion window in packets
	// (sctp_initial_cwnd; usrsctp's default 3); 0 = RFC 4960's
	// min(4 MTU, max(2 MTU, 4380 bytes)). usrsctp caps it at the
	// association's max burst.
	InitialCwnd int
	// CwndBasedMaxBurst (sctp_use_cwnd_based_maxburst, default on): max
	// burst lowers cwnd to the flight plus max burst packets before a send
	// (RFC 4960 section 6.1 D); off, it only limits one burst.
	CwndBasedMaxBurst bool
}

// Tuning reads the stack's current process-wide settings.
func Tuning() StackTuning {
	initStack()
	return StackTuning{
		InitialCwnd:       int(C.usrsctp_sysctl_get_sctp_initial_cwnd()),
		CwndBasedMaxBurst: C.usrsctp_sysctl_get_sctp_use_cwnd_based_maxburst() != 0,
	}
}

// SetTuning changes the process-wide settings (read them with Tuning
// first and change one field).
func SetTuning(t StackTuning) error {
	if t.InitialCwnd < 0 || t.InitialCwnd > 1000 {
		return fmt.Errorf("sctp: StackTuning.InitialCwnd %d out of range (0 = RFC 4960, else 1..1000 packets)", t.InitialCwnd)
	}
	initStack()
	on := C.uint32_t(0)
	if t.CwndBasedMaxBurst {
		on = 1
	}
	if C.usrsctp_sysctl_set_sctp_initial_cwnd(C.uint32_t(t.InitialCwnd)) != 0 ||
		C.usrsctp_sysctl_set_sctp_use_cwnd_based_maxburst(on) != 0 {
		return fmt.Errorf("sctp: usrsctp refused %+v", t)
	}
	return nil
}
