package probe

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spdylab/spdylab/internal/units"
)

// The Fields' validation (canonical spellings) and the apply functions of
// the link settings that combine several fields.

func oneOf(allowed ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		if member(v, allowed) {
			return v, nil
		}
		q := make([]string, len(allowed))
		for i, a := range allowed {
			q[i] = strconv.Quote(a)
		}
		return "", fmt.Errorf("must be one of %s", strings.Join(q, ", "))
	}
}

var canonBool = oneOf("false", "true")

func intRange(lo, hi int) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return "", fmt.Errorf("not an integer")
		}
		if n < lo || n > hi {
			return "", fmt.Errorf("must be between %d and %d", lo, hi)
		}
		return strconv.Itoa(n), nil
	}
}

func canonNonEmpty(v string) (string, error) {
	if v = strings.TrimSpace(v); v == "" {
		return "", errors.New("must not be empty")
	}
	return v, nil
}

// None is how a study file or a flag says "no model" for a setting whose
// absence is its default (ge_down, ge_up: Bernoulli loss; trace_down,
// trace_up: the fixed rate). Its canonical spelling is empty, as if not
// given, so the stored condition (and its hash) is the one without it. A
// trace file named none is written ./none.
const None = "none"

// IsNone tells whether v says None (or is empty).
func IsNone(v string) bool {
	v = strings.TrimSpace(v)
	return v == "" || v == None
}

// canonTrace is a delivery trace's file, or None.
func canonTrace(v string) (string, error) {
	if IsNone(v) {
		return "", nil
	}
	return canonNonEmpty(v)
}

func canonRate(v string) (string, error) {
	bps, err := units.ParseRate(v)
	if err != nil {
		return "", err
	}
	return units.FormatRate(bps), nil
}

func canonRatePair(v string) (string, error) {
	down, up, ok := strings.Cut(v, "/")
	if !ok {
		up = down
	}
	d, err := canonRate(down)
	if err != nil {
		return "", err
	}
	u, err := canonRate(up)
	if err != nil {
		return "", err
	}
	return d + "/" + u, nil
}

// maxDelay bounds a round trip and a one-way delay (the emulator's limit).
const maxDelay = time.Minute

func canonDuration(v string) (string, error) {
	d, err := units.ParseDuration(v, maxDelay)
	if err != nil {
		return "", err
	}
	return d.String(), nil
}

func canonLoss(v string) (string, error) {
	p, err := units.ParseLoss(v)
	if err != nil {
		return "", err
	}
	if p >= 1 {
		return "", fmt.Errorf("loss %q would drop every packet", v)
	}
	return strconv.FormatFloat(p*100, 'f', -1, 64) + "%", nil
}

func canonGE(v string) (string, error) {
	if IsNone(v) {
		return "", nil
	}
	g, err := ParseGE(v)
	if err != nil {
		return "", err
	}
	return g.String(), nil
}

func canonQueue(v string) (string, error) {
	p, b, err := units.ParseQueue(v)
	if err != nil {
		return "", err
	}
	return Queue{Pkts: p, Bytes: b}.String(), nil
}

func canonSCTPRTO(v string) (string, error) {
	d, err := units.ParseDurationIn(v, time.Millisecond, MaxSCTPRTO, "ms")
	if err != nil {
		return "", err
	}
	return d.String(), nil
}

func canonSCTPBuffer(v string) (string, error) {
	n, err := ParseSize(v)
	if err != nil {
		return "", err
	}
	if n < MinSCTPBuffer || n > MaxSCTPBuffer {
		return "", fmt.Errorf("must be between %s and %s", FormatSize(MinSCTPBuffer), FormatSize(MaxSCTPBuffer))
	}
	return FormatSize(n), nil
}

// sizeUnits are the suffixes a byte size may carry (binary multiples: a
// socket buffer is counted in KiB).
var sizeUnits = []struct {
	suffix string
	mult   int
}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"k", 1 << 10}, {"m", 1 << 20}, {"b", 1}}

// ParseSize reads a buffer size: "65536", "64KiB", "64kb" or "1MiB".
func ParseSize(v string) (int, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	mult := 1
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<40/mult {
		return 0, fmt.Errorf("%q is not a size like \"64KiB\" or \"65536\"", v)
	}
	return n * mult, nil
}

// FormatSize spells a size canonically: whole MiB or KiB, else bytes.
func FormatSize(n int) string {
	switch {
	case n > 0 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "MiB"
	case n > 0 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n)
}

// atoi and duration read values Canon has already checked.
func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func duration(s string) time.Duration { d, _ := time.ParseDuration(s); return d }

// applyRates sets the rates: rate ("DOWN/UP"), with down and up, when
// given, overriding its halves.
func applyRates(c *Condition, v map[string]string) error {
	down, up, _ := strings.Cut(v["rate"], "/")
	if v["down"] != "" {
		down = v["down"]
	}
	if v["up"] != "" {
		up = v["up"]
	}
	c.Link.DownBps, _ = units.ParseRate(down)
	c.Link.UpBps, _ = units.ParseRate(up)
	return nil
}

// applyDelays sets the RTT and the one-way delays that override its even
// split (Link.OneWay); an RTT of 0 with one-way delays given is their sum.
// Delays the link cannot apply as given are refused (Link.CheckDelays).
func applyDelays(c *Condition, v map[string]string) error {
	l := &c.Link
	l.RTT, l.DelayDown, l.DelayUp = duration(v["rtt"]), duration(v["delay_down"]), duration(v["delay_up"])
	if err := l.CheckDelays(); err != nil {
		return err
	}
	if l.RTT == 0 && (l.DelayDown > 0 || l.DelayUp > 0) {
		l.RTT = l.DelayDown + l.DelayUp
	}
	return nil
}

// applyLoss sets Bernoulli loss (loss in the loss_dir directions,
// loss_down and loss_up overriding it) or, instead, a direction's
// Gilbert-Elliott model.
func applyLoss(c *Condition, v map[string]string) error {
	l := &c.Link
	loss, _ := units.ParseLoss(v["loss"])
	if dir := v["loss_dir"]; dir == "both" || dir == "down" {
		l.LossDown = loss
	}
	if dir := v["loss_dir"]; dir == "both" || dir == "up" {
		l.LossUp = loss
	}
	for _, d := range []struct {
		dir  string
		loss *float64
		ge   *GilbertElliott
	}{{"down", &l.LossDown, &l.GEDown}, {"up", &l.LossUp, &l.GEUp}} {
		if s := v["loss_"+d.dir]; s != "" {
			*d.loss, _ = units.ParseLoss(s)
		}
		ge := v["ge_"+d.dir]
		if ge == "" {
			continue
		}
		if v["loss_"+d.dir] != "" && *d.loss > 0 {
			return &FieldError{Field: "ge_" + d.dir, Value: ge, Err: fmt.Errorf("and loss_%s both set; choose one loss model", d.dir)}
		}
		*d.ge, _ = ParseGE(ge)
		*d.loss = 0
	}
	return nil
}

// applyQueues sets the droptail limits in their one spelling: equal
// directions are Link.QueuePkts/QueueBytes alone; otherwise those hold
// one direction (the unlimited one, if either is) and QueueDown or QueueUp
// the other, so a per-direction queue is never the zero "as queue".
func applyQueues(c *Condition, v map[string]string) error {
	var q [3]Queue
	for i, name := range []string{"queue", "queue_down", "queue_up"} {
		if v[name] != "" {
			q[i].Pkts, q[i].Bytes, _ = units.ParseQueue(v[name])
		}
	}
	down, up := q[0], q[0]
	if v["queue_down"] != "" {
		down = q[1]
	}
	if v["queue_up"] != "" {
		up = q[2]
	}
	l := &c.Link
	switch {
	case down == up:
		l.QueuePkts, l.QueueBytes = down.Pkts, down.Bytes
	case up.Unlimited():
		l.QueuePkts, l.QueueBytes, l.QueueDown = up.Pkts, up.Bytes, down
	default:
		l.QueuePkts, l.QueueBytes, l.QueueUp = down.Pkts, down.Bytes, up
	}
	return nil
}

// ProfileLabel is how a condition names its profile: NAME@HASH.
var profileLabel = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}@[0-9a-f]{8,64}$`)

// canonProfileLabel accepts "" (no profile) or a profile's label; study
// files and `spdylab load` give a file, which study/studyfile reads and
// turns into this label.
func canonProfileLabel(v string) (string, error) {
	if v == "" || profileLabel.MatchString(v) {
		return v, nil
	}
	return "", fmt.Errorf("want a profile's NAME@HASH label (a study file names the profile's file, which is read into it)")
}
