package sctp

/*
#include "shim.h"
*/
import "C"

import "time"

// Applied is what the stack reports for an association's knobs, read back
// after setup (so a knob it ignored shows here, not only in Config).
type Applied struct {
	RTOInitial, RTOMin, RTOMax time.Duration
	SendBuffer, ReceiveBuffer  int
	MaxBurst                   int // 0 = no limit
	SACKDelay                  time.Duration
	SACKFrequency              int // a SACK every this many packets (1 = delayed SACK off)
	NoDelay                    bool
	OutboundStreams            int
	InboundStreams             int
	CongestionControl          string // the association's module (CongestionControls), e.g. "rfc2581"
}

// Applied reads the association's settings back from the stack.
func (a *Assoc) Applied() (Applied, error) {
	a.mu.RLock()
	if a.so == nil {
		a.mu.RUnlock()
		return Applied{}, ErrClosed
	}
	var o C.struct_shim_opts
	r, errno := C.shim_readback(a.so, &o)
	a.mu.RUnlock()
	if r < 0 {
		return Applied{}, a.sockError(errno)
	}
	out, in := a.Streams()
	return Applied{
		RTOInitial:        time.Duration(o.rto_initial_ms) * time.Millisecond,
		RTOMin:            time.Duration(o.rto_min_ms) * time.Millisecond,
		RTOMax:            time.Duration(o.rto_max_ms) * time.Millisecond,
		SendBuffer:        int(o.sndbuf),
		ReceiveBuffer:     int(o.rcvbuf),
		MaxBurst:          int(o.max_burst),
		SACKDelay:         time.Duration(o.sack_delay_ms) * time.Millisecond,
		SACKFrequency:     int(o.sack_freq),
		NoDelay:           o.nodelay != 0,
		OutboundStreams:   out,
		InboundStreams:    in,
		CongestionControl: ccName(int(o.cc)),
	}, nil
}
