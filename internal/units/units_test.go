package units

import (
	"strings"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	good := map[string]int64{
		"64kbit": 64_000, "1.5mbit": 1_500_000, "10mbit": 10_000_000, "1gbit": 1_000_000_000,
		"100Mbit": 100_000_000, " 20mbit ": 20_000_000, "unlimited": 0, "UNLIMITED": 0,
		"64000bit": 64_000, "0.5mbit": 500_000, "20mbit/s": 20_000_000,
	}
	for in, want := range good {
		got, err := ParseRate(in)
		if err != nil || got != want {
			t.Errorf("ParseRate(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":          "empty",
		"10":        "no unit",
		"10mbps":    "ambiguous",
		"10kbps":    "ambiguous",
		"63kbit":    "outside",
		"2gbit":     "outside",
		"0mbit":     "outside",
		"-1mbit":    "outside",
		"fast":      "want a number",
		"10furlong": "unknown unit",
		"1..5mbit":  "not a number",
	}
	for in, frag := range bad {
		_, err := ParseRate(in)
		if err == nil {
			t.Errorf("ParseRate(%q) succeeded; want error about %q", in, frag)
			continue
		}
		if !strings.Contains(err.Error(), frag) || (in != "" && !strings.Contains(err.Error(), in)) {
			t.Errorf("ParseRate(%q) error %q should name the value and mention %q", in, err, frag)
		}
	}
}

func TestFormatRateRoundTrips(t *testing.T) {
	for _, bps := range []int64{64_000, 1_500_000, 10_000_000, 1_000_000_000, 0, 123_000} {
		got, err := ParseRate(FormatRate(bps))
		if err != nil || got != bps {
			t.Errorf("ParseRate(FormatRate(%d)=%q) = %d, %v", bps, FormatRate(bps), got, err)
		}
	}
}

func TestParseQueue(t *testing.T) {
	type q struct{ pkts, bytes int }
	good := map[string]q{
		"50pkt": {50, 0}, "1pkt": {1, 0}, "100packets": {100, 0}, "64kb": {0, 64_000}, "64KiB": {0, 65_536},
		"1mb": {0, 1_000_000}, "2MiB": {0, 2 << 20}, "9000b": {0, 9000}, "unlimited": {0, 0},
	}
	for in, want := range good {
		p, b, err := ParseQueue(in)
		if err != nil || p != want.pkts || b != want.bytes {
			t.Errorf("ParseQueue(%q) = %d, %d, %v; want %v", in, p, b, err, want)
		}
	}
	bad := map[string]string{
		"":           "empty",
		"50":         "no unit",
		"0pkt":       "outside",
		"1.5pkt":     "whole number",
		"1000b":      "one MTU",
		"50furlongs": "unknown unit",
		"2000000pkt": "outside",
	}
	for in, frag := range bad {
		_, _, err := ParseQueue(in)
		if err == nil || !strings.Contains(err.Error(), frag) || (in != "" && !strings.Contains(err.Error(), in)) {
			t.Errorf("ParseQueue(%q) error = %v; want one naming the value and mentioning %q", in, err, frag)
		}
	}
}

func TestParseLoss(t *testing.T) {
	good := map[string]float64{"1%": 0.01, "0.01": 0.01, "0": 0, "100%": 1, "1": 1, " 2.5 % ": 0.025, "0%": 0}
	for in, want := range good {
		got, err := ParseLoss(in)
		if err != nil || !near(got, want, 1e-12) {
			t.Errorf("ParseLoss(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	bad := map[string]string{"": "empty", "5": "percentage", "101%": "outside", "-1%": "outside", "lots": "not a number", "-0.1": "outside"}
	for in, frag := range bad {
		_, err := ParseLoss(in)
		if err == nil || !strings.Contains(err.Error(), frag) {
			t.Errorf("ParseLoss(%q) error = %v; want one mentioning %q", in, err, frag)
		}
	}
}

func near(a, b, eps float64) bool { return a-b < eps && b-a < eps }

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"512": 512, "512b": 512, "10k": 10240, "1.5m": 1572864, "0": 0} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1k", "lots", "1q", "NaN"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

func TestParseDuration(t *testing.T) {
	if d, err := ParseDuration(" 100ms ", time.Minute); err != nil || d != 100*time.Millisecond {
		t.Fatalf("100ms: %v, %v", d, err)
	}
	for _, bad := range []string{"100", "-1s", "2m"} {
		if _, err := ParseDuration(bad, time.Minute); err == nil {
			t.Errorf("ParseDuration(%q) accepted", bad)
		}
	}
}

// A bare number is the commonest slip in a duration: the error says a unit
// is needed and suggests one.
func TestParseDurationSuggestsUnit(t *testing.T) {
	for _, c := range []struct{ in, unit, want string }{
		{"100", "ms", "a duration needs a unit: did you mean 100ms?"},
		{" 2.5 ", "s", "a duration needs a unit: did you mean 2.5s?"},
		{"fast", "ms", `not a duration like "100ms"`},
	} {
		_, err := ParseDurationIn(c.in, 0, time.Hour, c.unit)
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseDurationIn(%q) = %v, want %q", c.in, err, c.want)
		}
	}
	if d, err := ParseDurationIn("0", 0, time.Hour, "ms"); err != nil || d != 0 {
		t.Errorf("0: %v, %v", d, err)
	}
}
