package har

import "github.com/spdylab/spdylab/probe"

// Phases are the timings as probe.Phases, -1 ("does not apply") kept.
func (t Timings) Phases() probe.Phases {
	return probe.Phases{Blocked: t.Blocked, DNS: t.DNS, Connect: t.Connect, SSL: t.SSL,
		Send: t.Send, Wait: t.Wait, Receive: t.Receive}
}

// AddPhases adds p's phases that apply to total. A load's phases are its
// entries' timings summed this way, and a condition's its loads' (SSL kept
// apart although Connect includes it, as in HAR); -1 means "does not
// apply" and adds nothing.
func AddPhases(total *probe.Phases, p probe.Phases) {
	add := func(dst *float64, v float64) {
		if v > 0 {
			*dst += v
		}
	}
	add(&total.Blocked, p.Blocked)
	add(&total.DNS, p.DNS)
	add(&total.Connect, p.Connect)
	add(&total.SSL, p.SSL)
	add(&total.Send, p.Send)
	add(&total.Wait, p.Wait)
	add(&total.Receive, p.Receive)
}
