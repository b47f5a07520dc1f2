package server

import (
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/tcpopt"
	"github.com/spdylab/spdylab/probe"
)

// sample is a TCP_INFO reading as the adaptive loop gets it.
func sample(retrans uint32, rtt, minRTT float64, rate uint64) tcpopt.TCPInfo {
	return tcpopt.TCPInfo{Retransmits: retrans, RTTms: rtt, MinRTTms: minRTT, DeliveryRate: rate}
}

// sent is a sample with the segments sent so far, at 10 Mbit/s in
// 1448-byte segments (so the RTT above the minimum is a queue's length).
func sent(segs, retrans uint32, rtt, minRTT float64) tcpopt.TCPInfo {
	ti := sample(retrans, rtt, minRTT, 1_250_000)
	ti.SegsOut, ti.SndMSS = segs, 1448
	return ti
}

// bbrAt is a sample at 20 Mbit/s over a 20 ms minimum RTT with bbr's
// pacing gain and the congestion state as TCP_CC_INFO and TCP_INFO give
// them (gain 0: not on bbr).
func bbrAt(segs, retrans uint32, rtt, gain float64, ca uint8) tcpopt.TCPInfo {
	ti := sample(retrans, rtt, 20, 2_500_000)
	ti.SegsOut, ti.SndMSS, ti.BBRPacingGain, ti.CAState = segs, 1448, gain, ca
	return ti
}

// startupRepair is page C's connection at 20/2 Mbit/s, 20 ms, 1 % (the
// shape the server log recorded, BENCHMARKS "Why adaptive cc's way back
// makes page C ... bimodal"): a loss at the minimum RTT switches it to
// bbr; start-up (gain 2.89) overshoots, drain (0.35) follows, and the
// overshoot's losses are repaired into the first probing round trips,
// with the RTT at repairRTT; then 1 % random loss with the RTT 6 ms up.
// One sample a round trip: a fixed 8-round-trip allowance would count
// the repair.
func startupRepair(repairRTT float64) []tcpopt.TCPInfo {
	const up, drain, probing, open, recovery = 2.89, 0.35, 1.0, tcpopt.CAOpen, tcpopt.CARecovery
	return []tcpopt.TCPInfo{
		bbrAt(200, 2, 21, 0, open),
		bbrAt(260, 2, 30, up, open), bbrAt(330, 10, 50, up, recovery), bbrAt(400, 20, 50, up, recovery),
		bbrAt(430, 30, 45, drain, recovery),
		bbrAt(450, 38, repairRTT, probing, recovery), bbrAt(470, 42, repairRTT, 1.25, recovery), bbrAt(490, 46, repairRTT, 0.75, recovery),
		bbrAt(500, 50, repairRTT, probing, recovery), bbrAt(540, 58, repairRTT, probing, recovery), bbrAt(580, 64, repairRTT, probing, recovery),
		bbrAt(620, 66, repairRTT, probing, recovery), bbrAt(680, 66, 26, 1.25, open), bbrAt(740, 67, 26, 0.75, open), bbrAt(800, 67, 26, probing, open),
		bbrAt(860, 68, 26, probing, open), bbrAt(920, 69, 26, probing, open),
	}
}

// TestAdaptiveCCDecides: recorded sequences of one connection's TCP_INFO
// and what the decision does with each: a loss at the base RTT (random
// loss) switches to bbr; losses with the RTT inflated (a queue
// overflowing) keep cubic; bbr that then loses with the RTT inflated goes
// back; no loss, no decision; no RTT sample, no decision.
func TestAdaptiveCCDecides(t *testing.T) {
	for _, tc := range []struct {
		name     string
		samples  []tcpopt.TCPInfo
		switches []string // non-empty decisions, in order
		outcome  string
	}{
		{"random loss at 100 ms", []tcpopt.TCPInfo{sample(0, 104, 100, 0), sample(0, 103, 100, 0), sample(2, 106, 100, 0), sample(5, 104, 100, 0)},
			[]string{"bbr"}, probe.AdaptCCSwitched},
		{"random loss at 20 ms within the slack", []tcpopt.TCPInfo{sample(1, 24, 20, 0)}, []string{"bbr"}, probe.AdaptCCSwitched},
		{"queue overflow at 20 ms", []tcpopt.TCPInfo{sample(0, 40, 20, 0), sample(0, 75, 20, 0), sample(3, 78, 20, 0), sample(6, 80, 20, 0)},
			nil, probe.AdaptCCQueue},
		{"queue overflow at 100 ms", []tcpopt.TCPInfo{sample(4, 158, 100, 0)}, nil, probe.AdaptCCQueue},
		{"queue first, random loss later", []tcpopt.TCPInfo{sample(2, 150, 100, 0), sample(2, 101, 100, 0), sample(3, 102, 100, 0)},
			[]string{"bbr"}, probe.AdaptCCSwitched},
		// 1 loss in 100 segments before the switch; after bbr's start-up
		// (8 round trips) 9 in 100 with the RTT tripled.
		{"bbr overfills a shallow queue", []tcpopt.TCPInfo{sent(100, 1, 21, 20), sent(120, 1, 40, 20), sent(140, 4, 60, 20), sent(160, 6, 60, 20),
			sent(180, 8, 60, 20), sent(200, 9, 60, 20), sent(220, 10, 60, 20), sent(240, 11, 60, 20), sent(260, 12, 60, 20),
			sent(300, 15, 70, 20), sent(330, 18, 72, 20), sent(360, 21, 72, 20)},
			[]string{"bbr", "cubic"}, probe.AdaptCCBack},
		// 1 loss in 150 segments before the switch (the first loss came
		// late), then 2% random loss under bbr with a deep queue's RTT:
		// twice the first estimate, but no shallow queue's loss rate.
		{"random loss under bbr above a low first estimate", []tcpopt.TCPInfo{sent(150, 1, 62, 60), sent(200, 2, 90, 60), sent(250, 3, 120, 60),
			sent(300, 4, 130, 60), sent(350, 5, 140, 60), sent(400, 6, 140, 60), sent(450, 7, 140, 60), sent(500, 8, 140, 60),
			sent(550, 9, 140, 60), sent(650, 11, 140, 60), sent(750, 13, 140, 60), sent(850, 15, 140, 60)},
			[]string{"bbr"}, probe.AdaptCCSwitched},
		// The same losses during bbr's start-up alone: no way back.
		{"bbr's start-up overflows a queue shallower than the BDP", []tcpopt.TCPInfo{sent(100, 1, 101, 100), sent(160, 5, 150, 100), sent(220, 12, 160, 100),
			sent(300, 20, 160, 100), sent(400, 21, 104, 100), sent(500, 22, 102, 100)},
			[]string{"bbr"}, probe.AdaptCCSwitched},
		// Recorded on the 2%-loss link of the harness test: one loss in
		// about 50 segments before and after, the RTT 60 -> 150 ms.
		{"bbr's start-up fills a deep queue under random loss", []tcpopt.TCPInfo{sent(50, 1, 68.5, 60.4), sent(100, 2, 70.1, 60.4), sent(150, 3, 64.1, 60.4),
			sent(200, 5, 127.8, 60.4), sent(250, 6, 145.9, 60.4), sent(300, 7, 150.6, 60.4), sent(400, 9, 104.6, 60.4)},
			[]string{"bbr"}, probe.AdaptCCSwitched},
		{"bbr's start-up repair at 20 ms, the RTT 6 ms up", startupRepair(26), []string{"bbr"}, probe.AdaptCCSwitched},
		{"bbr's start-up repair at 20 ms with start-up's queue", startupRepair(50), []string{"bbr"}, probe.AdaptCCSwitched},
		// bbr probing, 10 % lost with the RTT 6 ms up: about 10 segments
		// of queue, bbr's own probing, not a full shallow queue.
		{"high loss under bbr without a full queue", []tcpopt.TCPInfo{bbrAt(200, 2, 21, 0, tcpopt.CAOpen), bbrAt(300, 2, 21, 1, tcpopt.CAOpen),
			bbrAt(400, 12, 26, 1.25, tcpopt.CAOpen), bbrAt(500, 22, 26, 1, tcpopt.CAOpen), bbrAt(600, 32, 26, 0.75, tcpopt.CAOpen)},
			[]string{"bbr"}, probe.AdaptCCSwitched},
		{"bbr, probing, overfills a shallow queue", []tcpopt.TCPInfo{bbrAt(200, 2, 21, 0, tcpopt.CAOpen), bbrAt(300, 2, 21, 1, tcpopt.CAOpen),
			bbrAt(400, 12, 50, 1.25, tcpopt.CAOpen), bbrAt(500, 22, 50, 1, tcpopt.CAOpen), bbrAt(600, 32, 50, 0.75, tcpopt.CAOpen)},
			[]string{"bbr", "cubic"}, probe.AdaptCCBack},
		{"no loss", []tcpopt.TCPInfo{sample(0, 100, 100, 0), sample(0, 180, 100, 0)}, nil, probe.AdaptCCQuiet},
		{"no RTT sample", []tcpopt.TCPInfo{sample(3, 0, 0, 0)}, nil, probe.AdaptCCQuiet},
	} {
		a := ccAdapter{onLoss: true}
		var got []string
		for i, s := range tc.samples {
			// One sample a round trip: the 20 ms rows' bbr settles after
			// 8 samples, the 100 ms rows' too.
			at := time.Duration(float64(i)*s.MinRTTms) * time.Millisecond
			if to := a.observe(s, "cubic", at); to != "" {
				got = append(got, to)
			}
		}
		if len(got) != len(tc.switches) || len(got) > 0 && (got[0] != tc.switches[0] || got[len(got)-1] != tc.switches[len(tc.switches)-1]) {
			t.Errorf("%s: switched %v, want %v", tc.name, got, tc.switches)
		}
		if a.result() != tc.outcome {
			t.Errorf("%s: outcome %q, want %q", tc.name, a.result(), tc.outcome)
		}
	}
}

// TestAdaptiveLowat: the mark is delivery rate x minimum RTT within
// 16 KiB..4 MiB, none without either signal, and reset only when it moves
// by more than a quarter.
func TestAdaptiveLowat(t *testing.T) {
	for _, tc := range []struct {
		ti   tcpopt.TCPInfo
		want int
	}{
		{sample(0, 110, 100, 1_250_000), 125_000}, // 10 Mbit/s x 100 ms
		{sample(0, 22, 20, 2_500_000), 50_000},    // 20 Mbit/s x 20 ms
		{sample(0, 1, 0.1, 1_000_000), minAdaptLowat},
		{sample(0, 200, 200, 1<<30), maxAdaptLowat},
		{sample(0, 100, 100, 0), 0},
		{sample(0, 0, 0, 1_250_000), 0},
	} {
		if got := lowatFor(tc.ti); got != tc.want {
			t.Errorf("rate %d B/s, min rtt %v ms: lowat %d, want %d", tc.ti.DeliveryRate, tc.ti.MinRTTms, got, tc.want)
		}
	}
	for _, tc := range []struct {
		set, next int
		want      bool
	}{{0, 20000, true}, {100000, 120000, false}, {100000, 130000, true}, {100000, 70000, true}, {100000, 0, false}} {
		if got := lowatMoved(tc.set, tc.next); got != tc.want {
			t.Errorf("lowatMoved(%d, %d) = %v", tc.set, tc.next, got)
		}
	}
}

// paced is a sample as adaptive pacing reads it: RTT, minimum RTT,
// delivery rate and its app-limited flag, window (1000-byte segments) and
// ssthresh (0: still in the initial slow start).
func paced(rtt, minRTT float64, rate uint64, appLimited bool, cwnd, ssthresh uint32) tcpopt.TCPInfo {
	ti := sample(0, rtt, minRTT, rate)
	ti.DeliveryRateAppLimited, ti.SndCwnd, ti.SndMSS, ti.SndSsthresh = appLimited, cwnd, 1000, ssthresh
	return ti
}

// TestAdaptivePacingDecides: samples 50 ms apart at a 100 ms minimum RTT
// (a round trip every two), and the caps the decision sets. In slow start
// the first sample with the RTT an eighth above its minimum caps at once,
// at the larger of the best rate and the window's rate; later rounds of
// slow start that still show a queue lower it to 0.85 x the round's rate
// when the connection sent at the cap, three rounds at most. Past slow start nothing lowers it;
// a round near the minimum RTT raises it by 15%, and above twice the best
// rate it is lifted.
func TestAdaptivePacingDecides(t *testing.T) {
	const mb = 1_000_000
	lifted := uint64(tcpopt.PacingUncapped)
	for _, tc := range []struct {
		name    string
		samples []tcpopt.TCPInfo
		caps    []uint64 // decisions, in order (0s left out)
		lowest  uint64
	}{
		{"no queue, never paced", []tcpopt.TCPInfo{paced(101, 100, mb/2, false, 10, 0), paced(110, 100, mb, false, 20, 0), paced(112, 100, 2*mb, false, 40, 0)}, nil, 0},
		{"a queue in slow start: capped at once at the best rate", []tcpopt.TCPInfo{paced(101, 100, mb/2, false, 10, 0), paced(115, 100, mb, false, 40, 0)},
			[]uint64{mb}, mb},
		{"a burst's queue: the window's rate when the samples lag", []tcpopt.TCPInfo{paced(101, 100, mb/4, false, 10, 0), paced(115, 100, mb/4, false, 50, 0)},
			[]uint64{500_000}, 500_000},
		{"app-limited samples are not the path's", []tcpopt.TCPInfo{paced(101, 100, 4*mb, true, 10, 0), paced(115, 100, mb/2, false, 20, 0)},
			[]uint64{mb / 2}, mb / 2},
		{"the queue stays in slow start: lowered while the cap binds", []tcpopt.TCPInfo{
			paced(101, 100, mb/2, false, 10, 0), paced(115, 100, mb, false, 40, 0),
			paced(130, 100, 800_000, false, 60, 0), paced(130, 100, 800_000, false, 60, 0),
			paced(130, 100, 100_000, false, 60, 0), paced(130, 100, 100_000, false, 60, 0)},
			[]uint64{mb, 680_000}, 680_000},
		// A 17-segment window sends 170 kB/s at most: below a 1 MB/s cap,
		// whatever the queue, the round's rate is the window's.
		{"early slow start: the window, not the cap, limits the rate", []tcpopt.TCPInfo{
			paced(101, 100, mb, false, 10, 0), paced(115, 100, mb, false, 17, 0),
			paced(130, 100, 170_000, false, 17, 0), paced(130, 100, 170_000, false, 17, 0)},
			[]uint64{mb}, mb},
		{"past slow start: never lowered, raised near the minimum RTT, lifted above twice the best", []tcpopt.TCPInfo{
			paced(101, 100, mb/2, false, 10, 0), paced(115, 100, mb, false, 40, 0),
			paced(160, 100, 200_000, false, 30, 20), paced(160, 100, 200_000, false, 30, 20),
			paced(102, 100, mb, false, 30, 20), paced(102, 100, mb, false, 30, 20),
			paced(102, 100, mb, false, 30, 20), paced(102, 100, mb, false, 30, 20),
			paced(102, 100, mb, false, 30, 20), paced(102, 100, mb, false, 30, 20),
			paced(102, 100, mb, false, 30, 20), paced(102, 100, mb, false, 30, 20),
			paced(102, 100, mb, false, 30, 20), paced(102, 100, mb, false, 30, 20),
			paced(102, 100, mb, false, 30, 20), paced(102, 100, mb, false, 30, 20)},
			[]uint64{mb, 1_150_000, 1_322_500, 1_520_875, 1_749_006, lifted}, mb},
		// Capped at 100 kB/s, 1000-byte segments arrive 10 ms apart and a
		// delayed ACK waits for the second: 20 ms of the 30 are the cap's.
		{"a paced connection's own gaps are no queue", []tcpopt.TCPInfo{paced(101, 100, 100_000, false, 1, 0), paced(115, 100, 100_000, false, 1, 0),
			paced(130, 100, 100_000, false, 1, 0), paced(130, 100, 100_000, false, 1, 0)},
			[]uint64{100_000, 200_000}, 100_000},
		{"slow start lowers it three rounds at most: a queue that stays is another's", []tcpopt.TCPInfo{
			paced(101, 100, mb, false, 10, 0), paced(115, 100, mb, false, 40, 0),
			paced(130, 100, mb, false, 60, 0), paced(130, 100, mb, false, 60, 0),
			paced(130, 100, 800_000, false, 60, 0), paced(130, 100, 800_000, false, 60, 0),
			paced(130, 100, 600_000, false, 60, 0), paced(130, 100, 600_000, false, 60, 0),
			paced(130, 100, 400_000, false, 60, 0), paced(130, 100, 400_000, false, 60, 0)},
			[]uint64{mb, 850_000, 680_000, 510_000}, 510_000},
		// A cap set on a small rate (another connection's burst) must not
		// hold a connection that never loses, so never leaves slow start:
		// it doubles a round, as slow start would, up to twice the best rate.
		{"in slow start a cap doubles to twice the best rate and stays there", []tcpopt.TCPInfo{
			paced(101, 100, mb/2, false, 10, 0), paced(115, 100, mb/2, false, 10, 0),
			paced(102, 100, mb/2, false, 60, 0), paced(102, 100, mb/2, false, 60, 0),
			paced(102, 100, mb/2, false, 60, 0), paced(102, 100, mb/2, false, 60, 0),
			paced(102, 100, mb/2, false, 60, 0), paced(102, 100, mb/2, false, 60, 0),
			paced(102, 100, mb/2, false, 60, 0), paced(102, 100, mb/2, false, 60, 0),
			paced(102, 100, mb/2, false, 60, 0), paced(102, 100, mb/2, false, 60, 0),
			paced(102, 100, mb/2, false, 60, 0), paced(102, 100, mb/2, false, 60, 0),
			paced(102, 100, mb/2, false, 60, 0), paced(102, 100, mb/2, false, 60, 0)},
			[]uint64{500_000, mb}, 500_000},
		{"in slow start a cap that binds keeps doubling", []tcpopt.TCPInfo{
			paced(81, 80, 50_000, false, 12, 0), paced(95, 80, 50_000, false, 12, 0),
			paced(82, 80, 150_000, false, 12, 0), paced(82, 80, 150_000, false, 12, 0),
			paced(82, 80, 300_000, false, 24, 0), paced(82, 80, 300_000, false, 24, 0),
			paced(82, 80, 600_000, false, 48, 0), paced(82, 80, 600_000, false, 48, 0)},
			[]uint64{150_000, 300_000, 600_000, 1_200_000}, 150_000},
		{"a queue under an eighth of the RTT is no slow-start queue", []tcpopt.TCPInfo{paced(101, 100, mb/2, false, 10, 0), paced(111, 100, mb, false, 40, 0)}, nil, 0},
		{"no RTT sample, no decision", []tcpopt.TCPInfo{paced(0, 0, mb, false, 10, 0), paced(0, 0, mb, false, 10, 0)}, nil, 0},
	} {
		var p paceAdapter
		var got []uint64
		for i, s := range tc.samples {
			if c := p.observe(s, time.Duration(i)*50*time.Millisecond); c != 0 {
				got = append(got, c)
			}
		}
		if len(got) != len(tc.caps) {
			t.Errorf("%s: caps %v, want %v", tc.name, got, tc.caps)
			continue
		}
		for i := range got {
			if d := int64(got[i]) - int64(tc.caps[i]); d > 5 || d < -5 { // float rounding
				t.Errorf("%s: caps %v, want %v", tc.name, got, tc.caps)
				break
			}
		}
		if p.lowest != tc.lowest {
			t.Errorf("%s: lowest %d, want %d", tc.name, p.lowest, tc.lowest)
		}
	}
}

// onBBRAt is a sample on bbr at a 101.8 ms minimum RTT in 1448-byte
// segments, with bbr's pacing gain as TCP_CC_INFO gives it (0: a kernel
// that does not report it).
func onBBRAt(rtt float64, rate uint64, gain float64) tcpopt.TCPInfo {
	ti := sample(0, rtt, 101.8, rate)
	ti.SndMSS, ti.BBRPacingGain = 1448, gain
	return ti
}

// TestAdaptivePacingOnBBR: a connection adaptive cc moved to bbr. The cap
// made under cubic is lifted at once; bbr's start-up is capped at the best
// rate it reached when its RTT shows a queue of 16 segments, and the cap is
// lifted when start-up ends. The first case is the regrown connection of
// study1's page C on 2 servers at 10/1 Mbit/s, 100 ms (the server's
// TCP_INFO every 50 ms, this session's trace): without the guard it went
// on doubling to a 252-segment window and lost 118 segments at once.
func TestAdaptivePacingOnBBR(t *testing.T) {
	const up, drain = 2.89, 0.35
	lifted := uint64(tcpopt.PacingUncapped)
	for _, tc := range []struct {
		name    string
		capped  bool // a cubic cap was set before the move
		samples []tcpopt.TCPInfo
		caps    []uint64
	}{
		{"page C's regrowth: capped at the queue, lifted at drain", false, []tcpopt.TCPInfo{
			onBBRAt(107.9, 153_133, 0), // the sample of the move, read under cubic
			onBBRAt(105.1, 216_073, up), onBBRAt(103.4, 306_970, up), onBBRAt(104.9, 912_662, up),
			onBBRAt(111.8, 1_111_039, up), onBBRAt(124.3, 1_206_695, up), onBBRAt(147.4, 1_206_769, up),
			onBBRAt(130, 1_150_000, drain), onBBRAt(150, 1_150_000, up)},
			[]uint64{1_206_695, lifted}},
		{"a cubic cap is lifted at the move", true, []tcpopt.TCPInfo{onBBRAt(105, 500_000, 0), onBBRAt(105, 500_000, up)},
			[]uint64{lifted}},
		{"a burst early in start-up is no queue", false, []tcpopt.TCPInfo{
			onBBRAt(105, 100_000, 0), onBBRAt(118, 150_000, up), onBBRAt(116, 300_000, up)}, nil},
		{"start-up over before any queue: never capped", false, []tcpopt.TCPInfo{
			onBBRAt(105, 100_000, 0), onBBRAt(105, 600_000, up), onBBRAt(104, 1_200_000, drain), onBBRAt(140, 1_200_000, up)}, nil},
		{"no gain reported: no start-up to tell, never capped", false, []tcpopt.TCPInfo{
			onBBRAt(105, 100_000, 0), onBBRAt(140, 1_200_000, 0), onBBRAt(150, 1_200_000, 0)}, nil},
	} {
		var p paceAdapter
		if tc.capped {
			p.observe(paced(101, 100, 1_000_000, false, 10, 0), 0)
			if p.observe(paced(140, 100, 1_000_000, false, 40, 0), 50*time.Millisecond) == 0 {
				t.Fatalf("%s: no cubic cap set in slow start with a queue", tc.name)
			}
		}
		var got []uint64
		for _, s := range tc.samples {
			if c := p.observeBBR(s); c != 0 {
				got = append(got, c)
			}
		}
		if len(got) != len(tc.caps) {
			t.Errorf("%s: caps %v, want %v", tc.name, got, tc.caps)
			continue
		}
		for i := range got {
			if got[i] != tc.caps[i] {
				t.Errorf("%s: caps %v, want %v", tc.name, got, tc.caps)
				break
			}
		}
	}
}

// TestAdaptivePacingStandsDown: a cap that could not be set stands the
// adapter down for good, on cubic and after a move to bbr; one never
// capped needs no system call.
func TestAdaptivePacingStandsDown(t *testing.T) {
	var p paceAdapter
	p.observe(paced(101, 100, 1_000_000, false, 10, 0), 0)
	if p.observe(paced(140, 100, 1_000_000, false, 40, 0), 50*time.Millisecond) == 0 {
		t.Fatal("no cap set in slow start with a queue")
	}
	if got := p.standDown(); got != tcpopt.PacingUncapped {
		t.Errorf("stand down with a cap set: %d, want the uncapped rate", got)
	}
	if got := p.observe(paced(200, 100, 1_000_000, false, 40, 0), 300*time.Millisecond); got != 0 || p.standDown() != 0 {
		t.Errorf("after standing down: a cap %d", got)
	}
	p.observeBBR(onBBRAt(105, 100_000, 0))
	if got := p.observeBBR(onBBRAt(150, 1_200_000, 2.89)); got != 0 {
		t.Errorf("stood down, then on bbr: a cap %d", got)
	}
	var never paceAdapter
	if got := never.standDown(); got != 0 {
		t.Errorf("never capped: stand down sets %d", got)
	}
}

// ca is a TCP_INFO sample in congestion avoidance (ssthresh set) unless
// ssthresh is 0, in the open state, not app-limited.
func ca(cwnd, ssthresh uint32, rtt, minRTT float64) tcpopt.TCPInfo {
	return tcpopt.TCPInfo{SndCwnd: cwnd, SndSsthresh: ssthresh, RTTms: rtt, MinRTTms: minRTT, CAState: tcpopt.CAOpen}
}

// repeat is n copies of a sample.
func repeat(n int, ti tcpopt.TCPInfo) []tcpopt.TCPInfo {
	out := make([]tcpopt.TCPInfo, n)
	for i := range out {
		out[i] = ti
	}
	return out
}

// TestAdaptiveRegrowDecides: sequences of one connection's TCP_INFO, one
// sample per adaptInterval at a 100 ms minimum RTT, and whether adaptive
// regrowth moves it to bbr. The first is the one study1's page C on two
// servers shows: the connection an overflow cut to a 14-segment window
// sits behind the other's queue, then, the other done, its RTT falls to
// the minimum while it sends full windows.
func TestAdaptiveRegrowDecides(t *testing.T) {
	appLimited := ca(14, 14, 101, 100)
	appLimited.DeliveryRateAppLimited = true
	recovering := ca(14, 14, 101, 100)
	recovering.CAState = tcpopt.CARecovery
	join := func(parts ...[]tcpopt.TCPInfo) []tcpopt.TCPInfo {
		var out []tcpopt.TCPInfo
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		onLoss  bool
		samples []tcpopt.TCPInfo
		at      int // the sample that switches, -1 for none
		outcome string
	}{
		{"a cut window behind another's queue, then alone", false,
			join(repeat(50, ca(14, 14, 150, 100)), repeat(25, ca(16, 14, 109, 100))), 70, probe.AdaptCCRoom},
		{"room with adaptive cc on as well", true,
			join(repeat(50, ca(14, 14, 150, 100)), repeat(25, ca(16, 14, 103, 100))), 70, probe.AdaptCCRoom},
		{"a window above the path's BDP keeps a queue", false, repeat(60, ca(93, 93, 120, 100)), -1, probe.AdaptCCQuiet},
		{"slow start is not congestion avoidance", false, repeat(60, ca(40, 0, 101, 100)), -1, probe.AdaptCCQuiet},
		{"nothing to send", false, repeat(60, appLimited), -1, probe.AdaptCCQuiet},
		{"in loss recovery", false, repeat(60, recovering), -1, probe.AdaptCCQuiet},
		{"room that a queue interrupts", false,
			join(repeat(15, ca(20, 14, 103, 100)), repeat(1, ca(20, 14, 130, 100)), repeat(15, ca(20, 14, 103, 100))), -1, probe.AdaptCCQuiet},
	} {
		a := ccAdapter{onLoss: tc.onLoss, regrow: true}
		at := -1
		for i, s := range tc.samples {
			if to := a.observe(s, "cubic", time.Duration(i)*adaptInterval); to != "" {
				if to != adaptCC || at >= 0 {
					t.Errorf("%s: sample %d switched to %s (earlier switch at %d)", tc.name, i, to, at)
				}
				at = i
			}
		}
		if at != tc.at || a.result() != tc.outcome {
			t.Errorf("%s: switched at sample %d, outcome %q; want %d, %q", tc.name, at, a.result(), tc.at, tc.outcome)
		}
	}
	// adaptive cc alone does not act on room, and regrowth alone not on a
	// loss without a queue.
	a := ccAdapter{onLoss: true}
	for i, s := range repeat(60, ca(16, 14, 103, 100)) {
		if to := a.observe(s, "cubic", time.Duration(i)*adaptInterval); to != "" {
			t.Fatalf("adaptive cc alone switched to %s on room", to)
		}
	}
	b := ccAdapter{regrow: true}
	if to := b.observe(sample(3, 101, 100, 0), "cubic", 0); to != "" {
		t.Errorf("regrowth alone switched to %s at a loss", to)
	}
}
