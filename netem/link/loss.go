package link

import (
	"hash/fnv"
	"math/rand/v2"

	"github.com/spdylab/spdylab/probe"
)

// GilbertElliott is the two-state Markov loss model (netem's "gemodel");
// probe owns it because a condition's Link stores it.
type GilbertElliott = probe.GilbertElliott

// lossModel decides, packet by packet, whether random loss strikes. It is
// applied when a packet reaches the bottleneck, before the queue (where
// Linux netem applies its loss): a lost packet never occupies the queue, so
// random loss and queue overflow are counted separately and do not interact.
type lossModel struct {
	rng  *rand.Rand
	p    float64         // Bernoulli probability (used when ge == nil)
	ge   *GilbertElliott // bursty model, or nil
	bad  bool            // Gilbert-Elliott state
	none bool            // no loss configured: never consume random numbers
}

// newLossModel seeds the generator from the configured seed and the pipe's
// name, so the two directions of a link given the same seed still draw
// independent loss patterns, and a run is reproducible from its seed.
func newLossModel(name string, seed int64, p float64, ge *GilbertElliott) *lossModel {
	h := fnv.New64a()
	h.Write([]byte(name))
	m := &lossModel{rng: rand.New(rand.NewPCG(uint64(seed), h.Sum64())), p: p, ge: ge}
	m.none = ge == nil && p == 0
	return m
}

// lose reports whether the next packet is lost.
func (m *lossModel) lose() bool {
	if m.none {
		return false
	}
	if m.ge == nil {
		return m.rng.Float64() < m.p
	}
	// The current state decides this packet; then the chain moves on.
	var lost bool
	if m.bad {
		lost = m.ge.LossBad > 0 && m.rng.Float64() < m.ge.LossBad
		if m.rng.Float64() < m.ge.R {
			m.bad = false
		}
	} else {
		lost = m.ge.LossGood > 0 && m.rng.Float64() < m.ge.LossGood
		if m.rng.Float64() < m.ge.P {
			m.bad = true
		}
	}
	return lost
}
