package link

import (
	"github.com/spdylab/spdylab/internal/units"
	"github.com/spdylab/spdylab/probe"
)

// Limits the emulator accepts (internal/units owns the parsing).
const (
	MinRateBps = units.MinRateBps
	MaxRateBps = units.MaxRateBps
	MTU        = units.MTU
)

// ParseGE parses Gilbert-Elliott parameters (probe.ParseGE's syntax,
// "p=1%,r=30%,h=0,k=1").
func ParseGE(s string) (*GilbertElliott, error) {
	ge, err := probe.ParseGE(s)
	if err != nil {
		return nil, err
	}
	return &ge, nil
}
