package probe

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spdylab/spdylab/internal/units"
)

// GilbertElliott is the two-state Markov loss model (netem's "gemodel")
// of one direction of a Link. The chain moves once per packet: from good
// to bad with probability P, from bad to good with probability R. A packet
// is lost with probability LossGood in the good state (1-k in netem terms)
// and LossBad in the bad state (1-h). With LossGood 0 and LossBad 1, loss
// bursts last 1/R packets on average and the long-run loss rate is
// P/(P+R). The zero value is no model (Bernoulli loss from the Link).
type GilbertElliott struct {
	P        float64 `json:"p"`
	R        float64 `json:"r"`
	LossGood float64 `json:"loss_good"`
	LossBad  float64 `json:"loss_bad"`
}

// Validate checks every probability is within 0..1 and the chain can
// leave the bad state.
func (g GilbertElliott) Validate() error {
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
func (g GilbertElliott) MeanLoss() float64 {
	if g.P+g.R == 0 {
		return g.LossGood
	}
	bad := g.P / (g.P + g.R)
	return (1-bad)*g.LossGood + bad*g.LossBad
}

// String renders the model in ParseGE's syntax (its canonical spelling).
func (g GilbertElliott) String() string {
	f := func(x float64) string { return strconv.FormatFloat(round12(x), 'g', -1, 64) }
	return "p=" + f(g.P) + ",r=" + f(g.R) + ",h=" + f(1-g.LossBad) + ",k=" + f(1-g.LossGood)
}

// round12 drops the float noise of 1-x so a model has one spelling.
func round12(x float64) float64 { return math.Round(x*1e12) / 1e12 }

// ParseGE parses Gilbert-Elliott parameters in netem's gemodel terms as a
// comma-separated list: "p=1%,r=30%,h=0,k=1" or "p=0.01,r=0.3".
//
//	p  probability of moving from the good to the bad state (per packet); required
//	r  probability of moving from the bad to the good state; required
//	h  probability a packet survives in the bad state (default 0: every packet is lost)
//	k  probability a packet survives in the good state (default 1: none is lost)
//
// Each value accepts the same forms as a loss (units.ParseLoss).
func ParseGE(s string) (GilbertElliott, error) {
	orig := s
	s = strings.TrimSpace(s)
	if s == "" {
		return GilbertElliott{}, fmt.Errorf("Gilbert-Elliott model is empty; want e.g. p=1%%,r=30%%,h=0,k=1")
	}
	vals := map[string]float64{"h": 0, "k": 1}
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		key, val, ok := strings.Cut(part, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if !ok || key == "" {
			return GilbertElliott{}, fmt.Errorf("Gilbert-Elliott %q: %q is not key=value (keys p, r, h, k)", orig, part)
		}
		if !member(key, []string{"p", "r", "h", "k"}) {
			return GilbertElliott{}, fmt.Errorf("Gilbert-Elliott %q: unknown parameter %q (keys p, r, h, k)", orig, key)
		}
		if seen[key] {
			return GilbertElliott{}, fmt.Errorf("Gilbert-Elliott %q: parameter %q given twice", orig, key)
		}
		seen[key] = true
		v, err := units.ParseLoss(val)
		if err != nil {
			return GilbertElliott{}, fmt.Errorf("Gilbert-Elliott %q: parameter %s: %v", orig, key, err)
		}
		vals[key] = v
	}
	for _, req := range []string{"p", "r"} {
		if !seen[req] {
			return GilbertElliott{}, fmt.Errorf("Gilbert-Elliott %q: parameter %s is required", orig, req)
		}
	}
	ge := GilbertElliott{P: vals["p"], R: vals["r"], LossGood: round12(1 - vals["k"]), LossBad: round12(1 - vals["h"])}
	if err := ge.Validate(); err != nil {
		return GilbertElliott{}, fmt.Errorf("Gilbert-Elliott %q: %v", orig, err)
	}
	return ge, nil
}
