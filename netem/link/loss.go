package link

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// GilbertElliott is the two-state Markov loss model (netem's "gemodel").
// The chain moves once per packet: from good to bad with probability P,
// from bad to good with probability R. A packet is lost with probability
// LossGood in the good state (1-k in netem terms) and LossBad in the bad
// state (1-h). With LossGood 0 and LossBad 1, loss bursts last 1/R packets
// on average and the long-run loss rate is P/(P+R).
type GilbertElliott struct{ P, R, LossGood, LossBad float64 }

func (g *GilbertElliott) validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"p", g.P}, {"r", g.R}, {"loss in good state (1-k)", g.LossGood}, {"loss in bad state (1-h)", g.LossBad}} {
		if math.IsNaN(f.v) || f.v < 0 || f.v > 1 {
			return fmt.Errorf("%s = %v is outside 0..1", f.name, f.v)
		}
	}
	if g.R == 0 && g.P > 0 {
		return fmt.Errorf("r = 0 would keep the link in the bad state forever once entered")
	}
	return nil
}

// MeanLoss is the long-run loss probability of the model.
func (g *GilbertElliott) MeanLoss() float64 {
	if g.P+g.R == 0 {
		return g.LossGood
	}
	bad := g.P / (g.P + g.R)
	return (1-bad)*g.LossGood + bad*g.LossBad
}

// String renders the model in ParseGE's syntax.
func (g *GilbertElliott) String() string {
	return fmt.Sprintf("p=%g,r=%g,h=%g,k=%g", g.P, g.R, 1-g.LossBad, 1-g.LossGood)
}

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
