package link

import (
	"fmt"
	"strings"

	"github.com/spdylab/spdylab/internal/units"
)

// Limits the emulator accepts (internal/units owns the parsing).
const (
	MinRateBps = units.MinRateBps
	MaxRateBps = units.MaxRateBps
	MTU        = units.MTU
)

// ParseGE parses Gilbert-Elliott parameters in netem's gemodel terms as a
// comma-separated list: "p=1%,r=30%,h=0,k=1" or "p=0.01,r=0.3".
//
//	p  probability of moving from the good to the bad state (per packet); required
//	r  probability of moving from the bad to the good state; required
//	h  probability a packet survives in the bad state (default 0: every packet is lost)
//	k  probability a packet survives in the good state (default 1: none is lost)
//
// Each value accepts the same forms as ParseLoss.
func ParseGE(s string) (*GilbertElliott, error) {
	orig := s
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("Gilbert-Elliott model is empty; want e.g. p=1%%,r=30%%,h=0,k=1")
	}
	vals := map[string]float64{"h": 0, "k": 1}
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		key, val, ok := strings.Cut(part, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if !ok || key == "" {
			return nil, fmt.Errorf("Gilbert-Elliott %q: %q is not key=value (keys p, r, h, k)", orig, part)
		}
		switch key {
		case "p", "r", "h", "k":
		default:
			return nil, fmt.Errorf("Gilbert-Elliott %q: unknown parameter %q (keys p, r, h, k)", orig, key)
		}
		if seen[key] {
			return nil, fmt.Errorf("Gilbert-Elliott %q: parameter %q given twice", orig, key)
		}
		seen[key] = true
		v, err := units.ParseLoss(val)
		if err != nil {
			return nil, fmt.Errorf("Gilbert-Elliott %q: parameter %s: %v", orig, key, err)
		}
		vals[key] = v
	}
	for _, req := range []string{"p", "r"} {
		if !seen[req] {
			return nil, fmt.Errorf("Gilbert-Elliott %q: parameter %s is required", orig, req)
		}
	}
	ge := &GilbertElliott{P: vals["p"], R: vals["r"], LossGood: 1 - vals["k"], LossBad: 1 - vals["h"]}
	if err := ge.validate(); err != nil {
		return nil, fmt.Errorf("Gilbert-Elliott %q: %v", orig, err)
	}
	return ge, nil
}
