package link

import (
	"math"
	"testing"
)

func TestBernoulliLossInsideBinomialInterval(t *testing.T) {
	for _, p := range []float64{0.001, 0.01, 0.05, 0.3} {
		const n = 200_000
		m := newLossModel("down", 42, p, nil)
		lost := 0
		for i := 0; i < n; i++ {
			if m.lose() {
				lost++
			}
		}
		mean, sd := n*p, math.Sqrt(n*p*(1-p))
		if math.Abs(float64(lost)-mean) > 1.96*sd {
			t.Errorf("p=%v: lost %d of %d, outside the 95%% interval %.0f±%.0f", p, lost, n, mean, 1.96*sd)
		}
	}
}

func TestLossDeterministicPerSeedAndDirection(t *testing.T) {
	seq := func(name string, seed int64) []bool {
		m := newLossModel(name, seed, 0.1, nil)
		out := make([]bool, 1000)
		for i := range out {
			out[i] = m.lose()
		}
		return out
	}
	eq := func(a, b []bool) bool {
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	if !eq(seq("down", 7), seq("down", 7)) {
		t.Error("same seed and name must give the same loss pattern")
	}
	if eq(seq("down", 7), seq("down", 8)) {
		t.Error("different seeds gave the same loss pattern")
	}
	if eq(seq("down", 7), seq("up", 7)) {
		t.Error("the two directions share a seed but must not share a loss pattern")
	}
}

func TestNoLossConfigured(t *testing.T) {
	m := newLossModel("x", 1, 0, nil)
	for i := 0; i < 10000; i++ {
		if m.lose() {
			t.Fatal("lost a packet with loss 0")
		}
	}
}

func TestGilbertElliottBurstiness(t *testing.T) {
	ge := &GilbertElliott{P: 0.01, R: 0.3, LossGood: 0, LossBad: 1}
	m := newLossModel("down", 3, 0, ge)
	const n = 1_000_000
	lost, bursts, run := 0, 0, 0
	for i := 0; i < n; i++ {
		if m.lose() {
			lost++
			run++
		} else if run > 0 {
			bursts++
			run = 0
		}
	}
	meanBurst := float64(lost) / float64(bursts)
	if math.Abs(meanBurst-1/ge.R) > 0.1/ge.R {
		t.Errorf("mean loss burst %.2f packets, want about 1/r = %.2f", meanBurst, 1/ge.R)
	}
	rate := float64(lost) / n
	if math.Abs(rate-ge.MeanLoss()) > 0.1*ge.MeanLoss() {
		t.Errorf("loss rate %.4f, want about p/(p+r) = %.4f", rate, ge.MeanLoss())
	}
	// Bursty: the same mean loss as Bernoulli but far longer runs.
	b := newLossModel("down", 3, ge.MeanLoss(), nil)
	blost, bbursts, brun := 0, 0, 0
	for i := 0; i < n; i++ {
		if b.lose() {
			blost++
			brun++
		} else if brun > 0 {
			bbursts++
			brun = 0
		}
	}
	if bm := float64(blost) / float64(bbursts); bm > meanBurst/2 {
		t.Errorf("Bernoulli bursts (%.2f) should be much shorter than Gilbert-Elliott's (%.2f)", bm, meanBurst)
	}
}

func TestGilbertElliottPartialLossInStates(t *testing.T) {
	// h=0.5, k=0.99: 1% loss in good, 50% in bad.
	ge := &GilbertElliott{P: 0.05, R: 0.2, LossGood: 0.01, LossBad: 0.5}
	m := newLossModel("up", 11, 0, ge)
	const n = 500_000
	lost := 0
	for i := 0; i < n; i++ {
		if m.lose() {
			lost++
		}
	}
	want := ge.MeanLoss() // 0.8*0.01 + 0.2*0.5 = 0.108
	if got := float64(lost) / n; math.Abs(got-want) > 0.05*want {
		t.Errorf("loss rate %.4f, want %.4f", got, want)
	}
}
